// mudjack: the thin binary. All logic lives in the library (CONTRIBUTING.md rule 1).
#include "cli/cli.hpp"

int main(int argc, char** argv) {
  return mudjack::cli::main(argc, argv);
}
