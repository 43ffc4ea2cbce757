"""Which of the page's events are API endpoints.

Gradio makes every event an endpoint and writes the description of the public ones into each
page it serves (`window.gradio_api_info`): for the page's ~70 events that was ~340 KB of a
~1.1 MB page load, for a page that never shows gradio's API view. The events a script calls
through gradio's client are public: `/echo` and `/run` (a typed message, as the page sends
it) and `/usage` (the admins' report). Every other event is `INTERNAL`: callable as before,
left out of the API description.
"""

from __future__ import annotations

PUBLIC = "public"
INTERNAL = "undocumented"
