() => {
  // Long messages of the person's (a pasted log, a whole file) fold to their first lines,
  // so one paste does not push the conversation out of sight. "Show all (N lines)" below
  // it unfolds it and "Show less" folds it again; both are buttons, so Tab and Enter or
  // Space work. Only how it is drawn changes: the text stays whole in the page, so gradio's
  // copy and edit (which use the message's value) and a text search get all of it.
  const MOST_LINES = 12, MOST_CHARS = 1200;
  const FOLDED = "smolui-folded", TOGGLE = "smolui-fold-toggle";
  // Unfolded messages, by their text: gradio may draw a row again (a turn streaming below
  // it, a switch of versions), and what the person opened stays open.
  const opened = new Set();
  let made = 0;
  const textOf = (content) => (content.innerText || content.textContent || "").replace(/\n+$/, "");
  const size = (text) => {
    const lines = text.split("\n").length;
    if (lines > 1) return `${lines.toLocaleString("en")} lines`;
    return `${text.length.toLocaleString("en")} characters`;
  };
  const label = (text, open) => (open ? "Show less" : `Show all (${size(text)})`);
  const toggleFor = (body, text, key) => {
    let button = body.parentElement.querySelector(`:scope > .${TOGGLE}`);
    if (!button) {
      button = document.createElement("button");
      button.type = "button";
      button.className = TOGGLE;
      button.addEventListener("click", (event) => {
        event.stopPropagation();  // not a click on the message itself
        const now = button.dataset.key;
        if (opened.has(now)) opened.delete(now); else opened.add(now);
        fold();
      });
      body.after(button);
    }
    const content = body.querySelector(".message-content");
    if (!content.id) content.id = `smolui-fold-${++made}`;
    const open = opened.has(key);
    button.dataset.key = key;
    button.setAttribute("aria-controls", content.id);
    button.setAttribute("aria-expanded", String(open));
    const wanted = label(text, open);
    if (button.textContent !== wanted) button.textContent = wanted;
    content.classList.toggle(FOLDED, !open);
  };
  const fold = () => {
    const chat = document.getElementById("chat");
    if (!chat) return;
    chat.querySelectorAll('.message-row.user-row [data-testid="user"]').forEach((body) => {
      const content = body.querySelector(".message-content");
      const text = content ? textOf(content) : "";
      const long = text.split("\n").length > MOST_LINES || text.length > MOST_CHARS;
      if (!long) {  // short, or being edited (the pencil's box replaces the text)
        if (content) content.classList.remove(FOLDED);
        const stale = body.parentElement.querySelector(`:scope > .${TOGGLE}`);
        if (stale) stale.remove();
        return;
      }
      toggleFor(body, text, `${text.length}:${text.slice(0, 200)}`);
    });
  };
  // gradio draws and redraws the chat's rows as it streams: folded again where needed.
  let touched = true;
  new MutationObserver((records) => {
    const chat = document.getElementById("chat");
    if (!chat) return;
    for (const record of records) {
      const target = record.target.nodeType === Node.ELEMENT_NODE
        ? record.target : record.target.parentElement;
      if (!target || target.closest(`.${TOGGLE}`)) continue;  // its own label changing
      if (chat.contains(target) || target.contains(chat)) { touched = true; return; }
    }
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
  setInterval(() => {
    if (!touched) return;
    touched = false;
    fold();
  }, 300);
}
