"""The cases of `mudjack check FILE.py[:NAME]` (probe/mudjack_probe/checking.py):
none unless the run sets the parameter `target`."""

from mudjack_probe.api import param
from mudjack_probe.checking import declare

_target = param("target", "", path=True)
if _target:
    declare(_target, param("quick", False))
