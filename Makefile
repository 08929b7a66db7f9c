.PHONY: setup test demo benchmark serve

setup:
	bash scripts/setup.sh

test:
	bash scripts/test.sh

demo:
	bash scripts/demo.sh

benchmark: setup
	.venv/bin/python scripts/benchmark.py train --minutes 20 --threads 2 --name bench-en-zh

serve: setup
	.venv/bin/translate serve
