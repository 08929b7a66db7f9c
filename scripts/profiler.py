"""One entry for the project's profiles (`benchmarks/`, not installed): where the time of training and decoding goes.
Run one at a time, on an otherwise idle machine.

    python scripts/profiler.py search --beam 5            # decoding split by search phase and model part
    python scripts/profiler.py train --mechanisms all     # a training update split by phase, per mechanism
    python scripts/profiler.py roofline                   # FLOPs per sentence against this CPU's matrix-product peak
    python scripts/profiler.py ops                        # the small operations around the products, timed alone
    python scripts/profiler.py steps --steps 20           # milliseconds per update, per mechanism

`python scripts/profiler.py NAME --help` lists each one's options.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/ lives beside the package, not in it

from benchmarks import op_costs, peer, roofline, run_entry, search_profile, step_cost

PROFILES = {"search": search_profile.main, "train": lambda: peer.main(profile_only=True), "roofline": roofline.main,
            "ops": op_costs.main, "steps": step_cost.main}

if __name__ == "__main__":
    sys.exit(run_entry(PROFILES, __doc__))
