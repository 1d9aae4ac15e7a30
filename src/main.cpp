// mudjack: the thin binary. All logic lives in the library (STYLE.md rule 1).
#include "cli/cli.hpp"

int main(int argc, char** argv) {
  return mudjack::cli::main(argc, argv);
}
