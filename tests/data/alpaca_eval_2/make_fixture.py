"""Rebuild preferences.csv.gz and leaderboard.csv from a clone of github.com/tatsu-lab/alpaca_eval
at commit cd543a1 (see README.md): python make_fixture.py PATH_TO_ALPACA_EVAL_GIT_DIR

For every model whose results/<model>/weighted_alpaca_eval_gpt4_turbo/annotations.json is in the
commit (the larger files of a size-limited copy may be missing: those models are skipped), one row
per annotation: the model (its results folder's name; NullModel's generator_2 says "example"), the instruction's index in the reference model's file
(gpt4_1106_preview, the 805 AlpacaEval instructions in their order) and the preference exactly as the
JSON spells it (empty: null). The texts are left out. leaderboard.csv: the published AlpacaEval 2.0
leaderboard's rows of those models, unchanged.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import subprocess
import sys
from pathlib import Path

COMMIT = "cd543a1"
BOARD = "src/alpaca_eval/leaderboards/data_AlpacaEval_2/weighted_alpaca_eval_gpt4_turbo_leaderboard.csv"
REFERENCE = "gpt4_1106_preview"
HERE = Path(__file__).parent


def show(git: str, path: str) -> bytes:
    return subprocess.run(["git", "-C", git, "show", f"{COMMIT}:{path}"], check=True, capture_output=True).stdout


def present(git: str) -> list[str]:
    """The models whose annotation file's blob is in the copy."""
    tree = subprocess.run(["git", "-C", git, "ls-tree", "-r", "-l", COMMIT, "results/"], check=True,
                          capture_output=True, text=True).stdout
    models = []
    for line in tree.splitlines():
        meta, path = line.split("\t", 1)
        parts = path.split("/")
        if len(parts) != 4 or parts[2:] != ["weighted_alpaca_eval_gpt4_turbo", "annotations.json"]:
            continue
        blob = meta.split()[2]
        if subprocess.run(["git", "-C", git, "cat-file", "-e", blob], capture_output=True).returncode == 0:
            models.append(parts[1])
    return sorted(models)


def main(git: str) -> None:
    ref = json.loads(show(git, f"results/{REFERENCE}/weighted_alpaca_eval_gpt4_turbo/annotations.json"))
    index = {r["instruction"]: i for i, r in enumerate(ref)}
    rows = []
    models = present(git)
    for model in models:
        recs = json.loads(show(git, f"results/{model}/weighted_alpaca_eval_gpt4_turbo/annotations.json"))
        for r in recs:
            if r["generator_1"] != REFERENCE:  # generator_2 may differ from the folder (NullModel's says "example")
                raise SystemExit(f"{model}: the reference is {r['generator_1']}")
            p = r["preference"]
            rows.append((model, index[r["instruction"]], "" if p is None else repr(float(p))))
    rows.sort(key=lambda t: (t[0], t[1]))
    board = list(csv.reader(io.StringIO(show(git, BOARD).decode())))
    head, body = board[0], [r for r in board[1:] if r[0] in models]
    on_board = {r[0] for r in body}  # text_davinci_003 has annotations but no AlpacaEval 2.0 row: left out
    rows = [r for r in rows if r[0] in on_board]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["model", "instruction", "preference"])
    w.writerows(rows)
    with gzip.GzipFile(HERE / "preferences.csv.gz", "wb", mtime=0) as f:
        f.write(buf.getvalue().encode())
    with open(HERE / "leaderboard.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["model", *head[1:]])
        w.writerows(body)
    print(f"{len(on_board)} models, {len(rows)} annotations, {len(body)} leaderboard rows")


if __name__ == "__main__":
    main(sys.argv[1])
