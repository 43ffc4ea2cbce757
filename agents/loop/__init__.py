"""The ReAct loop: `MultiStepAgent`, `CodeAgent`, `ToolCallingAgent` and the parts each step
uses (the model call, parsing the action, repairs, planning, the last answer, callbacks, final
answer checks, managed agents and the tool set); its lifecycle between runs (`lifecycle`: reset,
undo, interrupt, close); the agent's recorded arguments (`config`) and its saving, loading and
copying methods (`persistence_api`, thin layers over `agents.persistence`, imported when called).

A model family's special needs plug in through one seam, `profile.ModelProfile`; the loop holds
no branch for any family. It names `agents.small_model` in one place only: `profile.choose_profile`
asks it, when an agent is built, whether the bundled tiny model's profile applies.

Before it executes an action, the loop asks the agent's `agents.approval` gate (a no-op unless
`approve=` holds something).

May import: agents.approval, agents.errors, agents.events, agents.executors, agents.memory, agents.models,
agents.observability, agents.persistence, agents.prompts, agents.small_model, tools.
"""
