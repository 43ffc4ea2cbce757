"""Upload ingestion for the chat: checks, safe storage, text extraction, images. No Gradio.

Typical use in a chat handler::

    folder = session_folder("uploads", conversation_id)
    result = ingest([(name, temp_path), ...], folder, UploadPolicy(), images_to_model=True)
    agent.run(result.task(text), images=result.images or None, ...)
    chat lines: result.user_messages()

May import: agents.errors, tools.document_reader, tools.text_decoding.
"""

from smolui.uploads.folders import delete_session_folder, folder_usage, session_folder
from smolui.uploads.ingest import AcceptedFile, IngestResult, RefusedFile, check_upload, ingest
from smolui.uploads.policy import UploadPolicy

__all__ = [
    "AcceptedFile",
    "IngestResult",
    "RefusedFile",
    "UploadPolicy",
    "check_upload",
    "delete_session_folder",
    "folder_usage",
    "ingest",
    "session_folder",
]
