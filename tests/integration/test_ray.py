"""`translate compare --executor ray`: a tiny study on a local two-node Ray cluster (every node on
127.0.0.1), with the worker of one run killed mid-run, equals the same study run one run after another;
the runs' result files come back to the driver. The test stops every Ray process it started (and checks
that none is left)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_executors import _results, sequential_study
from translate.config.schema import RunConfig
from translate.study.compare import FAULT_ENV, compare
from translate.study.executors import RayCluster


def _ray_processes() -> list[str]:
    names = []
    for comm in Path("/proc").glob("[0-9]*/comm"):
        try:
            names.append(comm.read_text(encoding="utf-8").strip())
        except OSError:
            continue
    return [n for n in names if n in ("raylet", "gcs_server")]


@pytest.mark.slow
def test_a_study_on_a_two_node_ray_cluster_equals_the_sequential_one(tmp_path: Path, tiny_config: RunConfig,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # before Ray is imported: every node on 127.0.0.1
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    ray = pytest.importorskip("ray")
    from ray.cluster_utils import Cluster

    cfg = sequential_study(tiny_config, tmp_path)
    monkeypatch.setenv(FAULT_ENV, "additive-seed1")  # the worker running it dies at its first validation
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "node_ip_address": "127.0.0.1",
                                                            "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1")
        ray.init(address=cluster.address)
        out, work = tmp_path / "ray", tmp_path / "work-ray"
        compare(cfg, ["none", "additive"], [1, 2], out, work, RayCluster(cluster.address, cpus=1))
        assert len({node["NodeID"] for node in ray.nodes() if node["Alive"]}) == 2
    finally:
        ray.shutdown()
        cluster.shutdown()
    assert not _ray_processes()
    assert (work / "additive-seed1.fault-fired").exists()
    assert _results(out) == _results(tmp_path / "sequential")
    assert sorted(p.name for p in (out / "runs").iterdir()) == ["additive-seed1", "additive-seed2", "none-seed1",
                                                                "none-seed2"]
