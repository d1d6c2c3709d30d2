"""Evaluation harness (below cli, above agent): scenarios through the real loop, offline by default.

    scenarios.SCENARIOS   name -> Scenario (goal, files, scripted plan, deterministic check)
    model                 the scripted model's policy: reads the conversation, decides the next turn
    noisy                 FAULTS (the mistakes real models make), NoiseConfig, ScriptedModel
    writers               a turn in each API's native shape or a text dialect
    personas.PERSONAS     the offline line-up: one persona per wire family and dialect
    runner                trials in temp workspaces, concurrency, per-trial metrics
    report / matrix       aggregation, rich tables, JSON; golden fixtures from real bug reports
    builtin / demo_model  `script = "builtin:demo"` for the offline profile; demo = `make demo`
"""
