"""The cases of `mudjack check FILE.py[:NAME]` (probe/mudjack_probe/checking.py):
none unless the run sets the parameter `target`. `framework` is the engine's
decision (src/cli/check_framework.cpp); `call_once`, set only when the engine
lists the cases, has NAME called once to report what it returns."""

from mudjack_probe.api import param
from mudjack_probe.checking import declare

_target = param("target", "", path=True)
if _target:
    declare(_target, param("quick", False), param("framework", "numpy"), param("call_once", False))
