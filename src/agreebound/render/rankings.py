"""The ranking of a judge's candidates' models as the text and Markdown reports print it, from the
report's ``calibration.ranking`` (made and decided by agreebound.app.rankings): plain lines a
caller escapes."""

from __future__ import annotations

from agreebound.core.json_types import JSONObject


def _interval(iv: list[float | None] | None) -> str:
    if not iv or iv[0] is None or iv[1] is None:
        return ""
    return f" [{iv[0]:.1f}, {iv[1]:.1f}]"


def _rating(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


def ranking_lines(block: JSONObject | None) -> list[str]:
    """The ranking in plain text (a caller escapes; a line starting with two spaces belongs to the
    line before): the models in order with rating, 95% interval and tie group; the sentence (tie
    groups and their rule); the method and the draws; the gate in words; the prediction-powered
    ratings beside the judge's, with how far the humans move them."""
    if not block:
        return []
    gate = block.get("gate")
    if block.get("unavailable"):
        out = [str(block["unavailable"])]
        return out + ([f"gate ({gate['status']}): {gate['sentence']}"] if gate else [])
    out = [f"{m['rank']}. {m['model']}: {_rating(m['rating'])}{_interval(m['interval95'])} (group {m['tie_group']})"
           for m in block["models"]]
    out.append(str(block["sentence"]))
    out.append(f"method: {block['method']}; anchored at {block['anchoring']}; intervals: {block['interval_method']}; "
               f"{block['battles']:,} judgments")
    if gate:
        out.append(f"gate ({gate['status']}): {gate['sentence']}")
    ppi = block.get("ppi")
    if ppi and ppi.get("unavailable"):
        out.append(str(ppi["unavailable"]))
    elif ppi:
        out.append(f"corrected by the human labels (prediction-powered; {ppi['anchor']} at 1000, the first model in "
                   "name order), beside the judge's alone shifted to the same anchor:")
        out += [f"  {m['model']}: {_rating(m['rating'])}{_interval(m['interval95'])}; judge alone "
                f"{_rating(m['judge_only'])}" for m in ppi["models"]]
        out.append(str(ppi["sentence"]))
        out.append(f"method: {ppi['method']}")
    return out
