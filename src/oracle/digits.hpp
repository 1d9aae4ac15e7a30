#pragma once
// Two numbers printed so that a person can tell them apart: a mismatch's
// worst element against its reference (oracle/accuracy.cpp), an error in eps
// against its bound (the CLI's tables, the reports). One rule, the Python
// API's (python/mudjack/__init__.py, _eps): 3 significant digits, else 6,
// else each number's shortest text that reads back as it. Pure.

#include <string>
#include <utility>

namespace mudjack::oracle {

// `v` with `digits` significant digits, as printf's %.*g writes it ("1.06",
// "6.0004", "1e+05", "inf", "nan").
std::string significant(double v, int digits);

// The shortest %g text of `v` (at most 17 significant digits) that reads back
// as exactly `v`: "0.1", "1.0625", "6.0004".
std::string shortest(double v);

// `a` and `b` with 3 significant digits; where those read the same but the
// numbers differ, with 6; where those still read the same, each as
// shortest(). Equal numbers (and two NaNs) print alike, with 3.
// {"1.06", "1.06"} for 1.0625 and 1.0615 would hide the difference:
// {"1.0625", "1.0615"}.
std::pair<std::string, std::string> told_apart(double a, double b);

}  // namespace mudjack::oracle
