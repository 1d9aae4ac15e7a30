#pragma once
// The command-line interface: parses arguments, runs one command, maps the
// one fatal error type to `mudjack: error: ...` and an exit code.

namespace mudjack::cli {

int main(int argc, char** argv);

}  // namespace mudjack::cli
