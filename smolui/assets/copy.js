() => {
  // What the chat's copy buttons copy. gradio's copy on an answer copies its whole turn
  // (every step's thoughts, code and logs, and the footer's raw `<sub>` tags), and "Copy
  // conversation" writes one "assistant:" line per step, empty for most. The clicks are
  // taken here, before gradio sees them, and copy what the page shows as the answer. Each
  // answer also gets "Copy turn as Markdown" (below), for the whole turn.
  const announce = window.smoluiSay, write = window.smoluiCopyText;  // speak.js
  // A message's text as the page shows it: a picture or file by its link or name.
  const shown = (element) => {
    const text = (element.innerText || "").replace(/\n{3,}/g, "\n\n").trim();
    if (text) return text;
    const media = element.querySelector("img[src], audio[src], a[href]");
    return media ? (media.src || media.href) : "";
  };
  // The footer (`✓ answered · 2 steps · …`), the steps and the list of files the code wrote
  // (its download links) are the turn's record, not its answer.
  const isFooter = (element) => {
    const sub = element.querySelector("sub");
    return sub && element.innerText.trim() === sub.innerText.trim();
  };
  const isFilesOut = (element) => !!element.querySelector('a[href*="/smolui/files/"]');
  const answers = (row) => [...row.querySelectorAll('[data-testid="bot"]')]
    .filter((element) => !element.querySelector(".thought-group") && !isFooter(element)
      && !isFilesOut(element))
    .map(shown).filter(Boolean);
  const conversation = () => {
    const parts = [];
    document.querySelectorAll("#chat .message-row").forEach((row) => {
      if (row.classList.contains("user-row")) {
        const said = [...row.querySelectorAll('[data-testid="user"]')].map(shown).filter(Boolean);
        if (said.length) parts.push("You: " + said.join("\n"));
      } else {
        const said = answers(row);
        if (said.length) parts.push("Agent: " + said.join("\n\n"));
      }
    });
    return parts.join("\n\n");
  };
  document.addEventListener("click", (event) => {
    const target = event.target.closest ? event.target : event.target.parentElement;
    const button = target && target.closest("#chat button[aria-label]");
    if (!button) return;
    const label = button.getAttribute("aria-label");
    let text = null, said = "";
    if (label === "Copy conversation" || label === "Copied conversation") {
      text = conversation();
      said = "Conversation copied";
    } else if (label === "Copy message" || label === "Copied message") {
      const panel = button.closest(".message-buttons");
      const message = panel && panel.previousElementSibling;
      const body = message && message.querySelector('[data-testid="bot"], [data-testid="user"]');
      if (!body) return;  // not a message's own button: gradio's copy goes on
      text = shown(body);
      said = body.matches('[data-testid="bot"]') ? "Answer copied" : "Message copied";
    } else {
      return;
    }
    event.preventDefault();
    event.stopImmediatePropagation();
    write(text).then((done) => announce(done ? said : "Could not copy"));
  }, true);

  // "Copy turn as Markdown" on each answer: the whole turn (steps, code, tool calls, logs,
  // images, the answer) as the server renders it from the chat shown
  // (smolui/ui/turn_copy.py), through a hidden button; the answer comes back to
  // `window.smoluiTurnMarkdown`.
  const TURN_LABEL = "Copy turn as Markdown";
  const style = document.createElement("style");
  style.textContent = `
    .smolui-turn-markdown { display: none !important; }
    .smolui-copy-turn { min-height: 24px; padding: 0 6px; border-radius: 4px;
      border: 1px solid var(--smolui-control-border, #6b7280); font-size: 0.75rem;
      background: var(--button-secondary-background-fill, transparent);
      color: var(--body-text-color, inherit); cursor: pointer; white-space: nowrap; }
    .smolui-copy-turn:focus-visible { outline: 2px solid var(--color-accent, #2563eb);
      outline-offset: 1px; }`;
  document.head.appendChild(style);
  let waiting = null;
  window.smoluiTurnMarkdown = (answer) => {
    const settle = waiting;
    waiting = null;
    if (settle) settle(answer);
  };
  const askServer = (answered) => new Promise((resolve) => {
    if (waiting) waiting({ error: "Asked again: this copy was dropped." });
    waiting = resolve;
    window.smoluiTurnAsked = { answered };
    // A server that never answers leaves the clipboard as it was, and says so.
    setTimeout(() => { if (waiting === resolve) window.smoluiTurnMarkdown(null); }, 30000);
    const hidden = document.querySelector(".smolui-turn-markdown");
    if (hidden) hidden.click(); else window.smoluiTurnMarkdown(null);
  });
  const copyTurn = (answered) => {
    const text = askServer(answered).then((answer) => {
      if (answer && typeof answer.markdown === "string") return answer.markdown;
      throw new Error((answer && answer.error) || "The server did not answer: nothing was copied.");
    });
    let copied;
    if (window.ClipboardItem && navigator.clipboard && navigator.clipboard.write) {
      // The item is handed over inside the click and filled once the server answers: a
      // browser lets a page write the clipboard only just after a person's action.
      const blob = text.then((markdown) => new Blob([markdown], { type: "text/plain" }));
      copied = navigator.clipboard.write([new ClipboardItem({ "text/plain": blob })])
        .then(() => true, () => text.then(write));
    } else {
      copied = text.then(write);
    }
    copied.then((done) => announce(done ? "Turn copied as Markdown" : "Could not copy"),
      (error) => announce(error.message));
  };
  // The rows of the person's before an answer's row name its turn (the server counts the
  // chat it is sent the same way: a message with files is one row).
  const answeredBefore = (row) => {
    const rows = [...document.querySelectorAll("#chat .message-row")];
    return rows.slice(0, rows.indexOf(row)).filter((r) => r.classList.contains("user-row")).length;
  };
  const turnButton = () => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "smolui-copy-turn";
    button.setAttribute("aria-label", TURN_LABEL);
    button.title = TURN_LABEL;
    button.textContent = TURN_LABEL;
    button.addEventListener("click", (event) => {
      event.stopPropagation();  // not a click on the message itself
      const row = button.closest(".message-row");
      if (row) copyTurn(answeredBefore(row));
    });
    return button;
  };
  // Every button row of the agent's gets one: the page script shows one row per turn
  // (smolui.js), and gradio draws rows again as the chat changes.
  const placeTurnButtons = () => {
    document.querySelectorAll(
      "#chat .message-row:not(.user-row) .message-buttons:not(:has(> .smolui-copy-turn))",
    ).forEach((panel) => panel.appendChild(turnButton()));
  };
  let queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; placeTurnButtons(); });
  }).observe(document.documentElement, { childList: true, subtree: true });
}
