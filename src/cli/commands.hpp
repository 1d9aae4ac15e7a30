#pragma once
// The commands, one file each (src/cli/cmd_<name>.cpp); cli.cpp puts them in
// the command table in this order.

#include "cli/common.hpp"

namespace mudjack::cli {

Command doctor_command();
Command check_command();
Command devices_command();
Command list_command();
Command run_command();
Command report_command();
Command compare_command();
Command portability_command();
Command merge_command();
Command repro_command();
Command runs_command();
Command cache_command();
Command serve_command();
Command sweep_command();
Command fuzz_command();

}  // namespace mudjack::cli
