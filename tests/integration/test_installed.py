"""After `pip install` of a built wheel (not an editable install), the CLI works from any folder."""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

from translate.config.paths import ensemble_members

pytestmark = pytest.mark.slow  # seconds each: `pytest -m "not slow"` skips them in the inner loop

REPO = Path(__file__).resolve().parents[2]


def test_installed_wheel_translates_from_any_folder(tmp_path: Path) -> None:
    """A wheel built here, installed with --no-deps into a fresh virtual environment made with
    --system-site-packages (its dependencies: this environment's site-packages, added as plain path
    entries, so the editable install of the checkout is not visible); run from an empty folder."""
    wheels, venv, elsewhere = tmp_path / "wheels", tmp_path / "venv", tmp_path / "elsewhere"
    elsewhere.mkdir()
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "-w", str(wheels), str(REPO)], check=True, capture_output=True, cwd=tmp_path)
    [wheel] = wheels.glob("translate-*.whl")
    import zipfile

    held = zipfile.ZipFile(wheel).namelist()
    assert not [name for name in held if "bench" in name], "benchmark code in the wheel"
    assert any(name.startswith("translate/inference/search/") for name in held)
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True)
    [venv_site] = venv.glob("lib/python*/site-packages")
    (venv_site / "parent_env.pth").write_text("\n".join(p for p in site.getsitepackages() if "site-packages" in p) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet",
                    "--no-deps", "--no-index", str(wheel)], check=True, capture_output=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRANSLATE_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(HOME=str(tmp_path / "home"), PATH=f"{venv / 'bin'}:{env.get('PATH', '')}")
    python, site_dir = str(venv / "bin" / "python"), venv_site

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([python, *args], check=False, capture_output=True, text=True, cwd=elsewhere,
                              env=env, timeout=300)

    where = run("-c", "import translate, translate.config.paths as p; print(translate.__file__); print(p.models_dir()); "
                      "print(p.names_file(), p.names_file().is_file())")
    assert where.returncode == 0, where.stderr
    package_file, models, names, names_there = where.stdout.split()
    assert package_file.startswith(str(site_dir)) and models.startswith(str(site_dir))  # the wheel, not the checkout
    assert names.startswith(str(site_dir)) and names_there == "True"  # the names lexicon ships in the wheel
    script = subprocess.run([str(venv / "bin" / "translate"), "text", "Where is the station?"], check=False, capture_output=True,
                            text=True, cwd=elsewhere, env=env, timeout=300)
    assert script.returncode == 0, script.stderr  # the console script, with the direction from the script
    assert any("\u4e00" <= c <= "\u9fff" for c in script.stdout)

    result = run("-m", "translate", "text", "Hello.")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() and any("\u4e00" <= c <= "\u9fff" for c in result.stdout)

    listed = run("-m", "translate", "models", "--json")  # the ensemble members a checkout's models ship, installed too
    installed = {row["name"]: row["members"] for row in map(json.loads, listed.stdout.splitlines())}
    assert installed == {m.name: len(ensemble_members(m)) for m in (REPO / "checkpoints").iterdir()
                         if (m / "model.safetensors").is_file()}
    info = run("-m", "translate", "info")
    assert info.returncode == 0, info.stderr
    assert f"cache: {tmp_path / 'home' / '.cache' / 'translate'}" in info.stdout
    assert "default corpus: " + str(site_dir) in info.stdout
    page = run("-c", "from fastapi.testclient import TestClient\nfrom translate.serve.app import create_app\n"
                     "from translate.serve.models import Models\nfrom translate.serve.settings import ServeSettings\n"
                     "with TestClient(create_app(Models.load(None), ServeSettings()), base_url='http://localhost') as c:\n"
                     "    print(c.get('/').status_code, c.get('/static/page.js').status_code, c.get('/health').json()['models'])")
    assert page.returncode == 0, page.stderr
    assert page.stdout.split()[:2] == ["200", "200"] and "en-zh" in page.stdout  # the page ships in the wheel
    assert sorted(p.name for p in elsewhere.iterdir()) == []  # nothing written into the current folder
