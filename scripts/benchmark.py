"""One entry for the project's benchmarks (`benchmarks/`, not installed); each prints its figures and writes JSON.
Run one at a time, on an otherwise idle machine.

    python scripts/benchmark.py train --minutes 20 --threads 2 --name bench-en-zh      # quality at 20 minutes
    python scripts/benchmark.py peer --minutes 5 --peer-dir ../shared/anchors/opennmt  # speed against OpenNMT-py
    python scripts/benchmark.py engines --repeats 5      # `translate text` start-up; both engines on the test split
    python scripts/benchmark.py prepare --pairs 1000000  # corpus preparation at scale (synthetic corpus)
    python scripts/benchmark.py serve-load               # `translate serve` at 1, 8 and 32 clients, then a flood
    python scripts/benchmark.py glossary                 # term use, BLEU and speed with data/everyday's glossary
    python scripts/benchmark.py hostile                  # hostile requests: status, time, server RSS
    python scripts/benchmark.py fairness                 # another client's sentence beside a flood of heavy searches
    python scripts/benchmark.py html-fuzz                # format html through the server and Chromium's DOM
    python scripts/benchmark.py lexicon                  # the names lexicon's matches on word boundaries or not
    python scripts/benchmark.py names --split dev         # names kept on the names set, both directions
    python scripts/benchmark.py python-api               # translate.load(...).translate against translate file
    python scripts/benchmark.py posts --output F.json    # the 32 test posts through the server (format html)
    python scripts/benchmark.py stutter --markdown docs/results/stutter.md   # stutter with and without the no-stutter search
    python scripts/benchmark.py significance --markdown docs/results/significance.md   # the test's size and power by simulation
    python scripts/benchmark.py sequential --markdown docs/results/sequential-looks.md  # --until-resolved's size and power
    python scripts/benchmark.py release-size --markdown docs/results/release-rule-size.md  # the release rule's size and power

`python scripts/benchmark.py NAME --help` lists each one's options.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/ lives beside the package, not in it

from benchmarks import (
    engines,
    fairness,
    glossary,
    hostile,
    html_fuzz,
    lexicon,
    names,
    peer,
    posts,
    prepare,
    python_api,
    release_size,
    run_entry,
    sequential,
    serve_load,
    significance,
    stutter,
    training,
)

BENCHMARKS = {"train": training.main, "peer": peer.main, "engines": engines.main, "prepare": prepare.main,
              "serve-load": serve_load.main, "glossary": glossary.main, "hostile": hostile.main,
              "fairness": fairness.main, "html-fuzz": html_fuzz.main, "lexicon": lexicon.main, "names": names.main,
              "python-api": python_api.main, "posts": posts.main, "stutter": stutter.main,
              "significance": significance.main, "sequential": sequential.main, "release-size": release_size.main}

if __name__ == "__main__":
    sys.exit(run_entry(BENCHMARKS, __doc__))
