#pragma once
// Which framework `mudjack check FILE.py:NAME` (and `mudjack.check`) runs NAME
// with. The probe reports facts as case tags (probe/mudjack_probe/checking.py,
// `facts`); the precedence is decided here, once:
//   --framework > the callable's own module > the one framework its globals
//   name > the inputs' types > numpy (plain Python).
// numpy yields to any other framework on the same step (a JAX function names
// both np and jnp; a torch function may take a numpy array). Where two
// frameworks remain on the step that decides, the check is refused with one
// line naming them.

#include <set>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace mudjack::cli {

struct CheckFacts {
  std::set<std::string> module;      // check.module::F — the callable's own module
  std::set<std::string> imports;     // check.imports::F — frameworks its globals name
  std::set<std::string> inputs;      // check.inputs::F — frameworks of its inputs
  std::vector<std::string> returns;  // check.returns::T — parts of its return that are no tensor
};

// The facts the cases carry (the first case's tags: every case of one target
// carries the same).
CheckFacts check_facts(const std::vector<model::CaseInfo>& cases);

// The framework to run `name` with; `flag` is --framework ("" when not
// given). util::FatalError (one line, exit 2) where two frameworks remain.
std::string decide_framework(const std::string& flag, const CheckFacts& facts,
                             const std::string& name);

// "g returns float; return the tensor" for a return value with a part that
// is no tensor, else "".
std::string non_tensor_return(const CheckFacts& facts, const std::string& name);

}  // namespace mudjack::cli
