"""The contract editor on the Judge page: fill in a contract's fields, see its content id computed
as you type (the seed's canonical-JSON SHA-256), download the trio's contract JSON.

The fields start from the loaded contract; "start again from the loaded contract" resets them.
Nothing here changes what is loaded or decided: the download is what a team commits and binds
its next snapshot to.
"""

from __future__ import annotations

import hashlib
from typing import Any

import streamlit as st

from agreebound.judge.contract import JudgeCalibrationContract
from agreebound.core.escape import md_text
from agreebound.app.judge_input import JudgeBundle
from agreebound.io.templates import contract_json
from agreebound.core.thresholds import NET_FIELDS, NET_GATES, RANGES, RATE_GATES
from agreebound.ui.state import K, session

TEXT_FIELDS = (("version", "Version"), ("scope", "Scope"), ("judge_generator", "Judge (generator id)"))
INT_FIELDS = (("repetitions_per_order", "Repetitions per order", 2, 20),
              ("minimum_cases", "Minimum cases", 1, 100_000))
PREFIX = K.CE_  # each field's widget: PREFIX + the contract's field name


def _reset(bundle: JudgeBundle) -> None:
    c = bundle.contract
    for name in JudgeCalibrationContract.__dataclass_fields__:
        session.set_widget(PREFIX + name, getattr(c, name))
    session.set_widget(K.CE_RUBRIC_DIGEST, bundle.rubric_digest)
    session.set_widget(K.CE_RUBRIC_TEXT, "")
    session.set_widget(K.CE_LOADED, c.content_id)


def _hash_rubric() -> None:
    text = session.widget(K.CE_RUBRIC_TEXT) or ""
    if text:
        session.set_widget(K.CE_RUBRIC_DIGEST, hashlib.sha256(text.encode("utf-8")).hexdigest())


def draw(bundle: JudgeBundle) -> None:
    with st.expander("Contract editor: write a contract, see its content id, download it"):
        if session.widget(K.CE_LOADED) != bundle.contract.content_id:  # another contract loaded: start from it
            _reset(bundle)
        st.caption("A contract is content-addressed: its id is the SHA-256 of its fields as canonical JSON, so any "
                   "change makes a new id. A snapshot binds to one id. Identifiers: lowercase letters, digits and "
                   ". _ : - (3 to 96 characters, starting with a letter).")
        c1, c2, c3 = st.columns(3)
        for (name, label), col in zip(TEXT_FIELDS, (c1, c2, c3)):
            col.text_input(label, key=PREFIX + name, max_chars=96)
        c1.number_input(INT_FIELDS[0][1], INT_FIELDS[0][2], INT_FIELDS[0][3], step=1, key=PREFIX + INT_FIELDS[0][0])
        c2.number_input(INT_FIELDS[1][1], INT_FIELDS[1][2], INT_FIELDS[1][3], step=1, key=PREFIX + INT_FIELDS[1][0])
        reviewers = "minimum_reviewers"
        r = RANGES[reviewers]
        c3.number_input("Minimum reviewers per reference", r.lo, r.hi, step=1, key=PREFIX + reviewers)
        cols = st.columns(len(RATE_GATES))
        for col, (gate, field, kind) in zip(cols, RATE_GATES):
            rng = RANGES[field]
            col.number_input(f"{gate.replace('_', ' ')} {'min' if kind == 'min' else 'max'} (bps)", rng.lo, rng.hi,
                             step=50, key=PREFIX + field)
        st.caption("Optional (contract version 2): also gate on the bias net of general disagreement, in points. "
                   "Leave empty for the seed's contract: its content id stays the same.")
        for col, (gate, field, _) in zip(st.columns(len(NET_GATES)), NET_GATES):
            rng = RANGES[field]
            col.number_input(f"{gate.replace('_', ' ')} max (bps, optional)", rng.lo, rng.hi, value=None, step=50,
                             key=PREFIX + field, placeholder="not gated")
        d1, d2 = st.columns([2, 1])
        d1.text_input("Rubric digest (SHA-256, 64 hex characters) for the snapshot header", key=K.CE_RUBRIC_DIGEST,
                      max_chars=64)
        d2.text_area("...or paste the rubric text to hash it", key=K.CE_RUBRIC_TEXT, height=68,
                     on_change=_hash_rubric, max_chars=200_000)
        try:
            # every field by name, as its widget holds it: text, a number, or an opt-in gate left empty
            given: dict[str, Any] = {name: session.widget(PREFIX + name) if name in dict(TEXT_FIELDS)
                                     else None if session.widget(PREFIX + name) is None and name in NET_FIELDS
                                     else int(session.widget(PREFIX + name))
                                     for name in JudgeCalibrationContract.__dataclass_fields__}
            contract = JudgeCalibrationContract(**given)
        except (ValueError, TypeError) as e:
            st.error("Not a valid contract yet: " + md_text(str(e), 200))
            st.button("Start again from the loaded contract", on_click=_reset, args=(bundle,), key=K.CE_RESET)
            return
        digest = (session.widget(K.CE_RUBRIC_DIGEST) or "").strip()
        st.markdown("Content id (live):")
        st.code(contract.content_id, language=None)
        if contract.content_id == bundle.contract.content_id and not bundle.measurement.contract_given:
            st.caption("The same content as the draft from the log: illustrative limits (the seed's example), not a "
                       "contract. Edit it into yours, download it, and give it above to have the judge decided.")
        elif contract.content_id == bundle.contract.content_id:
            st.caption("The same content as the loaded contract.")
        elif contract.content_id == bundle.contract_content_id:
            st.caption("The content id the loaded snapshot is bound to.")
        else:
            st.caption("A new contract: snapshots bound to it must name this id.")
        ok_digest = len(digest) == 64 and all(ch in "0123456789abcdef" for ch in digest)
        if not ok_digest:
            st.warning("The rubric digest must be 64 lowercase hex characters (SHA-256) for the snapshot header.")
        b1, b2 = st.columns(2)
        header = {"scope": contract.scope, "contract_content_id": contract.content_id, "rubric_digest": digest}
        b1.download_button("Download contract JSON (the trio's contract file)", contract_json(contract, header),
                           file_name="contract.json", mime="application/json", key=K.CE_DOWNLOAD, on_click="ignore",
                           disabled=not ok_digest)
        b2.button("Start again from the loaded contract", on_click=_reset, args=(bundle,), key=K.CE_RESET)
