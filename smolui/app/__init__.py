"""The application: settings, agent factories, the model loader, the starting page and
`GradioUI`, which builds the page and its server from every other package of smolui.

May import: agents, tools, smolui.
"""
