"""A literal restatement of the seed's audit loop (judge_calibration_audit.audit_calibration).

Test oracle only: plain dicts and loops, in the seed's order, on already-validated records.
Returns (decision, five bps, sorted reference issues) or raises ValueError with the seed's text.
"""


def seed_bps(num, den):
    return 0 if den == 0 else (num * 10_000 + den // 2) // den


def seed_audit(contract, snapshot):
    if snapshot.scope != contract.scope:
        raise ValueError("snapshot belongs to another scope")
    if snapshot.contract_content_id != contract.content_id:
        raise ValueError("snapshot is not bound to this contract content")
    refs = {r.case_id: r for r in snapshot.references}
    if len(refs) < contract.minimum_cases:
        raise ValueError("snapshot has fewer cases than the calibration contract")
    grouped, meta = {}, {}
    for o in snapshot.observations:
        if o.case_id not in refs:
            raise ValueError("observation has no human reference")
        if o.judge_generator != contract.judge_generator:
            raise ValueError("observation uses another judge generator")
        grouped.setdefault((o.case_id, o.order), []).append(o)
        cur = (o.candidate_a_tokens, o.candidate_b_tokens, o.candidate_a_generator, o.candidate_b_generator)
        if meta.setdefault(o.case_id, cur) != cur:
            raise ValueError("candidate metadata changes across observations")
    want = set(range(1, contract.repetitions_per_order + 1))
    for cid in refs:
        for order in ("ab", "ba"):
            if {o.repetition for o in grouped.get((cid, order), [])} != want:
                raise ValueError("each case requires every declared order and repetition")
    issues = []
    for r in snapshot.references:
        if len(r.reviewer_ids) < contract.minimum_reviewers:
            issues.append(f"reviewers:{r.case_id}")
        if not r.adjudicated:
            issues.append(f"adjudication:{r.case_id}")
    obs = snapshot.observations
    agree = sum(o.selected_candidate == refs[o.case_id].preferred_candidate for o in obs)
    ha = seed_bps(agree, len(obs))
    rv, verdicts = 0, {}
    for key, group in grouped.items():
        picks = {o.selected_candidate for o in group}
        if len(picks) > 1:
            rv += 1
            verdicts[key] = None
        else:
            verdicts[key] = next(iter(picks))
    rvb = seed_bps(rv, len(grouped))
    flips = opps = 0
    for cid in refs:
        ab, ba = verdicts[(cid, "ab")], verdicts[(cid, "ba")]
        if ab is not None and ba is not None:
            opps += 1
            flips += ab != ba
    pf = seed_bps(flips, opps)
    ve = vo = se = so = 0
    for o in obs:
        pref = refs[o.case_id].preferred_candidate
        at, bt, ag, bg = meta[o.case_id]
        if pref == "a" and at < bt:
            vo += 1
            ve += o.selected_candidate == "b"
        elif pref == "b" and bt < at:
            vo += 1
            ve += o.selected_candidate == "a"
        own = None
        if ag == contract.judge_generator and bg != ag:
            own = "a"
        elif bg == contract.judge_generator and ag != bg:
            own = "b"
        if own is not None and pref not in {own, "tie"}:
            so += 1
            se += o.selected_candidate == own
    vb, sp = seed_bps(ve, vo), seed_bps(se, so)
    failed = bool(issues) or (
        ha < contract.minimum_human_agreement_bps or pf > contract.maximum_position_flip_bps
        or rvb > contract.maximum_repeat_variance_bps or vb > contract.maximum_verbosity_bias_bps
        or sp > contract.maximum_self_preference_bps
    )
    return ("FAIL_CALIBRATION" if failed else "PASS_CALIBRATION", ha, pf, rvb, vb, sp, tuple(sorted(issues)))
