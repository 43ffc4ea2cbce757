() => {
  // The files in the message box, each chip captioned with its name, type and size, and a
  // file the server will refuse turned red with the reason, before anything is sent.
  // Everything comes from the box's own value (handed over on every change of the box:
  // smolui/ui/file_events.py) and the server's checks of those very files, never from what
  // the person picked: gradio may refuse a pick (too big) and draw no chip for it, and an
  // example's file comes without any pick.
  let files = [];  // {path, name, size} in the box's order: gradio draws one chip per file
  const checks = new Map();  // a file's path -> the server's check of it
  let asked = null;  // the paths sent with the check in flight
  let askedAt = 0;
  let tries = {key: "", count: 0};
  const baseName = (path) => String(path || "").split(/[\\/]/).pop();
  window.smoluiBoxFiles = (value) => {
    const list = value && Array.isArray(value.files) ? value.files : [];
    files = list.map((file) => ({
      path: String(file.path || file.url || ""),
      name: file.orig_name || baseName(file.path),
      size: typeof file.size === "number" ? file.size : null,
    }));
    const kept = new Set(files.map((file) => file.path));
    for (const path of [...checks.keys()]) if (!kept.has(path)) checks.delete(path);
  };
  // The answer to the one check in flight: the server checked the files in the order sent.
  window.smoluiAttachmentChecks = (value) => {
    const sent = asked;
    asked = null;
    if (!sent || !Array.isArray(value) || value.length !== sent.length) return;
    sent.forEach((path, index) => checks.set(path, value[index]));
  };
  // The message box has no upload event, so a hidden button (smolui/ui/layout.py) asks the
  // server; one check at a time, so that each answer belongs to the paths it was asked for.
  const ask = () => {
    const missing = files.some((file) => !checks.has(file.path));
    if (!missing || (asked && performance.now() - askedAt < 15000)) return;
    const key = files.map((file) => file.path).join("\n");
    if (tries.key !== key) tries = {key, count: 0};
    if (tries.count >= 3) return;  // the server does not answer for these: plain chips
    const button = document.querySelector(".smolui-check-files");
    if (!button) return;
    tries.count += 1;
    asked = files.map((file) => file.path);
    askedAt = performance.now();
    button.click();
  };
  const sizeText = (size) => size < 1024 ? size + " bytes"
    : size < 1048576 ? Math.round(size / 1024) + " KB" : (size / 1048576).toFixed(1) + " MB";
  const caption = (file, check) => {
    if (check) return check.name + " \u00b7 " + check.type + " \u00b7 " + check.size;
    const dot = file.name.lastIndexOf(".");
    const type = dot > 0 ? file.name.slice(dot + 1).toUpperCase() : "file";
    const size = file.size === null ? [] : [sizeText(file.size)];
    return [file.name, type, ...size].join(" \u00b7 ");
  };
  const part = (chip, className) => {
    let node = chip.querySelector("." + className);
    if (!node) {
      node = document.createElement("span");
      node.className = className;
      chip.appendChild(node);
    }
    return node;
  };
  const label = (chip, file) => {
    // gradio marks each chip a listitem in a container that is no list: a named group.
    if (chip.getAttribute("role") === "listitem") chip.setAttribute("role", "group");
    if (!file) return;
    const check = checks.get(file.path);
    const text = caption(file, check);
    const shown = part(chip, "smolui-chip");
    if (shown.textContent !== text) shown.textContent = text;
    const reason = check && check.refused;
    const why = reason ? "Will be refused: " + reason : "";
    // The chip's name for a screen reader is its caption (gradio names each "File
    // thumbnail"); the tooltip gives the whole of it, the name where it is cut short and the
    // reason, which a screen reader reads as the chip's description.
    if (chip.getAttribute("aria-label") !== text) chip.setAttribute("aria-label", text);
    const whole = why ? text + ". " + why : text;
    if (chip.title !== whole) chip.title = whole;
    chip.classList.toggle("smolui-refused", Boolean(reason));
    const note = chip.querySelector(".smolui-refusal");
    if (!reason) {
      if (note) note.remove();
      return;
    }
    const refusal = note || part(chip, "smolui-refusal");
    if (refusal.textContent !== why) refusal.textContent = why;
  };
  const show = () => {
    const chips = [...document.querySelectorAll("#message .thumbnail-wrapper")];
    if (!chips.length) return;
    ask();
    // While the box's value and its chips differ in number (a file being drawn), the chips
    // are left as they are rather than given another file's name.
    const lined = chips.length === files.length;
    chips.forEach((chip, index) => label(chip, lined ? files[index] : null));
  };
  setInterval(show, 250);
}
