"""GradioUI's launch settings on a real gradio app."""

from __future__ import annotations


def test_the_queue_polls_gently_on_a_real_blocks_app():
    import gradio as gr

    from smolui.app.queue_polling import PROGRESS_POLL_S, QUEUE_POLL_S, calm_queue_polling

    with gr.Blocks() as demo:
        gr.Markdown("hi")
    demo.queue()
    calm_queue_polling(demo)
    # If gradio renames these, this fails and the idle server burns CPU again (see bench/ui.py).
    assert demo._queue.sleep_when_free == QUEUE_POLL_S
    assert demo._queue.progress_update_sleep_when_free == PROGRESS_POLL_S
