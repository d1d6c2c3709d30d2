"""Evaluation harness (below cli, above agent): scenarios through the real loop, offline by default.

    scenarios.SCENARIOS   name -> Scenario (goal, files, scripted plan, deterministic check)
    noisy                 FAULTS (the mistakes real models make), NoiseConfig, ScriptedModel
    personas.PERSONAS     the offline line-up: one persona per wire family and dialect
    runner                trials in temp workspaces, concurrency, per-trial metrics
    report / matrix       aggregation, rich tables, JSON; golden fixtures from real bug reports

The scripted model's policy and turn writers (`agentcli.providers.scripted.model`, `.writers`) and the
offline demo model (`.demo_model`, `builtin:demo`) live with the scripted provider that plays them;
`make demo` is `agentcli.cli.demo`.
"""
