"""The built wheel holds the whole library, with rules/ and extract/ inside the eqsat_uopc namespace.

pyproject.toml lists its packages explicitly (rules/ and extract/ are mapped into eqsat_uopc with
package-dir), so a new subpackage that nobody added to the list would silently be missing from
`pip install .` while `pip install -e .` still works. This test builds the wheel from a copy of the
source tree and checks every .py and .egg file of the repository against it.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# repository directory -> where its files live in the wheel
PACKAGE_DIRS = {"eqsat_uopc": "eqsat_uopc", "rules": "eqsat_uopc/rules", "extract": "eqsat_uopc/extract"}


def _build_wheel(tmp_path: Path) -> zipfile.ZipFile:
    src = tmp_path / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    for name in PACKAGE_DIRS:
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy(ROOT / name, src / name)
    cmd = [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path / "dist"), str(src)]
    if importlib.util.find_spec("setuptools") and importlib.util.find_spec("wheel"):
        cmd.insert(4, "--no-isolation")  # build offline with the installed backend when there is one
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"building the wheel failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    return zipfile.ZipFile(wheel)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    return _build_wheel(tmp_path_factory.mktemp("wheel"))


def _expected_files() -> dict[str, str]:
    """wheel path -> repository path, for every .py, .egg and bundled corpus file of the package
    directories."""
    out = {}
    for repo_dir, wheel_dir in PACKAGE_DIRS.items():
        for f in sorted((ROOT / repo_dir).rglob("*")):
            if f.suffix in (".py", ".egg", ".jsonl") and "__pycache__" not in f.parts:
                rel = f.relative_to(ROOT / repo_dir).as_posix()
                out[f"{wheel_dir}/{rel}"] = f"{repo_dir}/{rel}"
    return out


def test_wheel_has_every_module_and_rule_file(wheel: zipfile.ZipFile):
    names = set(wheel.namelist())
    missing = {w: r for w, r in _expected_files().items() if w not in names}
    packages = sorted({w.rsplit("/", 1)[0].replace("/", ".") for w in missing})
    assert not missing, (
        f"packages missing from the wheel (add them to [tool.setuptools] packages in pyproject.toml): "
        f"{', '.join(packages)}; files: {', '.join(sorted(missing.values()))}"
    )


def test_wheel_has_rules_and_extract_inside_the_namespace(wheel: zipfile.ZipFile):
    names = wheel.namelist()
    assert "eqsat_uopc/corpus/data/caviar_dev.jsonl" in names and "eqsat_uopc/corpus/data/README.md" in names
    assert "eqsat_uopc/rules/__init__.py" in names and "eqsat_uopc/extract/__init__.py" in names
    assert any(n.startswith("eqsat_uopc/rules/") and n.endswith(".egg") for n in names)
    assert any(n.startswith("eqsat_uopc/extract/") and n.endswith(".py") for n in names)
    top = {n.split("/", 1)[0] for n in names if ".dist-info/" not in n}
    assert top == {"eqsat_uopc"}  # no top-level rules/ or extract/ in anybody's site-packages


def test_wheel_metadata(wheel: zipfile.ZipFile):
    info = next(n.split("/", 1)[0] for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    metadata = wheel.read(f"{info}/METADATA").decode()
    assert "Requires-Python: >=3.12" in metadata.splitlines()
    assert any(line.startswith("Requires-Dist: egglog") for line in metadata.splitlines())
    entry_points = wheel.read(f"{info}/entry_points.txt").decode()
    assert "eqsat-uopc = eqsat_uopc.cli:console" in entry_points
    assert wheel.read(f"{info}/top_level.txt").decode().split() == ["eqsat_uopc"]


def test_no_public_name_shadows_a_submodule():
    # `from .saturate import saturate` in __init__ made `eqsat_uopc.saturate` the function after
    # `import eqsat_uopc.saturate`: every exported name must differ from every module's name.
    import pkgutil

    import eqsat_uopc

    modules = {m.name for m in pkgutil.iter_modules(eqsat_uopc.__path__)} | {"rules", "extract"}
    assert sorted(set(eqsat_uopc.__all__) & modules) == []
    import eqsat_uopc.extract

    assert type(eqsat_uopc.extract).__name__ == "module" and hasattr(eqsat_uopc.extract, "COST_MODELS")
