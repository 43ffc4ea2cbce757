"""The small-model mode: what makes a tiny local model (the bundled SmolLM2-135M) a usable
agent, as a `agents.loop.profile.ModelProfile` (`profile.SmallModelProfile`): its prompt
transcript, worked examples retrieved by similarity, a step grammar and a tool-call grammar,
its own repairs, drafts and a vote.

May import: agents.errors, agents.executors, agents.loop, agents.memory, agents.models,
agents.prompts.
"""
