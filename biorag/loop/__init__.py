"""The agent: a small state machine (select, rewrite, retrieve, evaluate, answer), the planner
that fills its steps, grounding and sufficiency ("sufficient" needs evidence), extractive
answers, citation links and the prompts."""
