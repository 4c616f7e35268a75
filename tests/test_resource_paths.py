"""Every folder a module finds beside itself (`Path(__file__).parent / "resources"`,
`parents[1] / "presets"`, ...) exists: a module moved into a subpackage must still reach the
resources of its package."""

from __future__ import annotations

import re

from tests.test_floors import MAY_IMPORT, ROOT

BESIDE = re.compile(r"Path\(__file__\)(?:\.resolve\(\))?\.(?:parent|parents\[(\d)\])\s*/\s*\"([^\"]+)\"")


def resource_paths():
    for package in MAY_IMPORT:
        for path in sorted((ROOT / package).rglob("*.py")):
            for m in BESIDE.finditer(path.read_text()):
                base = path.parents[int(m.group(1) or 0)]
                yield path.relative_to(ROOT), base / m.group(2)


def test_every_folder_a_module_reads_beside_itself_exists():
    found = list(resource_paths())
    assert found, "the check found no module reading a folder beside itself"
    missing = [f"{module}: {target.relative_to(ROOT)}" for module, target in found if not target.exists()]
    assert not missing, "\n".join(missing)
