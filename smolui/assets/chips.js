() => {
  // The server's checks of the files put in the message box (smolui/ui/file_events.py),
  // shown on their chips before anything is sent: a refused file's chip turns red and
  // says why. The chips' name, type and size come at once from smolui.js.
  let checks = null;
  window.smoluiAttachmentChecks = (value) => { checks = Array.isArray(value) ? value : null; };
  // New files are on their way: the last checks were for other files.
  const forget = () => { checks = null; };
  document.addEventListener("change", (event) => {
    if (event.target.type === "file" && event.target.closest("#message")) forget();
  }, true);
  for (const kind of ["drop", "paste"]) {
    document.addEventListener(kind, (event) => {
      if (event.target.closest && event.target.closest("#message")) forget();
    }, true);
  }
  // When the box's files change, the server checks them: the message box has no upload
  // event, so a hidden button (smolui/ui/layout.py) is pressed.
  let seen = "";
  const askWhenChanged = (chips) => {
    const now = chips.length + ":" + chips.map((chip) =>
      (chip.querySelector(".smolui-chip") || {}).textContent || "").join("|");
    if (now === seen) return;
    seen = now;
    checks = null;
    const button = document.querySelector(".smolui-check-files");
    if (chips.length && button) button.click();
  };
  const show = () => {
    const chips = [...document.querySelectorAll("#message .thumbnail-wrapper")];
    askWhenChanged(chips);
    // The box's files and the checks are in the same order; after a file is removed the
    // checks no longer line up, and the chips go back to plain.
    const lined = checks && checks.length === chips.length;
    chips.forEach((chip, index) => {
      const reason = lined ? checks[index].refused : null;
      let note = chip.querySelector(".smolui-refusal");
      if (!reason) {
        chip.classList.remove("smolui-refused");
        if (note) note.remove();
        return;
      }
      chip.classList.add("smolui-refused");
      if (!note) {
        note = document.createElement("span");
        note.className = "smolui-refusal";
        chip.appendChild(note);
      }
      const text = "Will be refused: " + reason;
      if (note.textContent !== text) note.textContent = text;
    });
  };
  setInterval(show, 250);
}
