#pragma once
// Where the tests find the source tree, the fixtures and the binary. Defined
// in a file tests/CMakeLists.txt generates, so that no test's compile command
// names a path: one compiler cache serves every checkout of the tree.

namespace mudjack_test {
const char* source_dir();
const char* fixtures_dir();
const char* binary();
}  // namespace mudjack_test
