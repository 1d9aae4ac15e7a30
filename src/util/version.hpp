#pragma once
// The program's version and the git revision it was configured from. They
// live in one generated file (build/generated/version.cpp), so a new commit
// recompiles one file, not the library.
#include <string_view>

namespace mudjack::util {

std::string_view version();
std::string_view revision();

}  // namespace mudjack::util
