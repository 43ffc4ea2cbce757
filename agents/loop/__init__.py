"""The ReAct loop: `MultiStepAgent`, `CodeAgent`, `ToolCallingAgent` and the parts each step
uses (the model call, parsing the action, repairs, planning, the last answer, callbacks, final
answer checks, managed agents and the tool set); the agent's recorded arguments (`config`) and
its saving, loading and copying methods (`persistence_api`, thin layers over
`agents.persistence`, imported when called).

May import: agents.errors, agents.events, agents.executors, agents.memory, agents.models,
agents.observability, agents.persistence, agents.prompts, agents.small_model, tools.
"""
