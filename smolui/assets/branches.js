() => {
  // The "< 2/3 >" switchers of messages that have versions (an edited message, an answer
  // made again). The server lists them (smolui/ui/message_actions.py): each names the
  // message's role and the person's turn it belongs to (an answer: the turn it answers),
  // which is how it is found among the chat's rows. A click asks the server through a
  // hidden button; the chat it sends back is the branch now shown. From the keyboard: Tab to
  // an arrow, then Enter, Space or the left and right arrow keys. Also the keys of the inline
  // edit of a message of the person's (Enter sends it, Escape cancels).
  let versions = [];
  window.smoluiVersionRequest = null;
  const style = document.createElement("style");
  style.textContent = `
    .smolui-switch-version, .smolui-list-versions { display: none !important; }
    .smolui-versions { display: flex; align-items: center; gap: 2px; margin: 2px 8px;
      font-size: var(--text-sm, 0.875rem); color: var(--body-text-color, inherit); }
    .user-row .smolui-versions { justify-content: flex-end; }
    .smolui-versions button { min-width: 28px; min-height: 28px; padding: 0 6px;
      border: 1px solid var(--smolui-control-border, #6b7280); border-radius: 6px;
      font-size: 1rem; line-height: 1;
      background: var(--button-secondary-background-fill, transparent);
      color: var(--button-secondary-text-color, inherit); cursor: pointer; }
    .smolui-versions button[aria-disabled="true"] { opacity: 0.55; cursor: default; }
    .smolui-versions button:focus-visible { outline: 2px solid var(--color-accent, #2563eb);
      outline-offset: 1px; }`;
  document.head.appendChild(style);
  const key = (v) => `${v.position}:${v.current}/${v.total}`;
  const PREVIOUS = "Previous version", NEXT = "Next version";
  // The switcher pressed from the keyboard is drawn again for the version shown (and gradio
  // may redraw its row): the focus goes back to the arrow used, or a keyboard user would
  // start over from the top of the page.
  let refocus = null;
  const ask = (v, step) => {
    window.smoluiVersionRequest = { position: v.position, step };
    refocus = { position: v.position, from: key(v), label: step < 0 ? PREVIOUS : NEXT };
    const button = document.querySelector(".smolui-switch-version");
    if (button) button.click();
  };
  document.addEventListener("focusin", (event) => {
    if (!event.target.closest || !event.target.closest(".smolui-versions")) refocus = null;
  });
  // Said to a screen reader once the version asked for shows (speak.js).
  const announce = window.smoluiSay;
  const focusAgain = (group, v) => {
    if (!refocus || refocus.position !== v.position || refocus.from === key(v)) return;
    const label = refocus.label;
    refocus = null;
    announce(`Version ${v.current} of ${v.total} shown`);
    const now = document.activeElement;
    if (now && now !== document.body && now.isConnected) return;  // the person moved on
    // Always there: an arrow at an end is marked, not disabled, so it keeps the focus.
    const same = [...group.querySelectorAll("button")]
      .find((b) => b.getAttribute("aria-label") === label);
    if (same) same.focus();
  };
  // An arrow at an end says so (aria-disabled) but stays focusable: a disabled button
  // would drop the focus to the page the moment a switch reaches the end.
  const arrow = (label, text, enabled, step, v) => {
    const button = document.createElement("button");
    button.type = "button";
    button.setAttribute("aria-label", label);
    button.setAttribute("aria-disabled", String(!enabled));
    button.title = enabled ? label : `No ${label.toLowerCase()}`;
    button.textContent = text;
    button.addEventListener("click", (event) => {
      event.stopPropagation();  // not a click on the message itself
      if (enabled) ask(v, step);
    });
    return button;
  };
  const switcher = (v) => {
    const group = document.createElement("div");
    group.className = "smolui-versions";
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", `Versions of this message: ${v.current} of ${v.total}`);
    group.dataset.key = key(v);
    const count = document.createElement("span");
    count.textContent = `${v.current}/${v.total}`;
    count.setAttribute("aria-hidden", "true");  // the group's name says it in words
    group.append(
      arrow(PREVIOUS, "‹", v.current > 1, -1, v),
      count,
      arrow(NEXT, "›", v.current < v.total, 1, v),
    );
    // Left and right arrows move between versions too, as in other chat apps.
    group.addEventListener("keydown", (event) => {
      const step = { ArrowLeft: -1, ArrowRight: 1 }[event.key];
      if (!step || event.altKey || event.ctrlKey || event.metaKey) return;
      event.preventDefault();
      const to = v.current + step;
      if (to < 1 || to > v.total) return;  // at an end: nothing moves, the focus stays
      // The focus stays on the arrow it is on once the version shows.
      const used = event.target.closest("button");
      ask(v, step);
      if (used) refocus.label = used.getAttribute("aria-label");
    });
    return group;
  };
  // Which row shows each message with versions: a message of the person's in its turn's
  // row, an answer in the first row after the turn it answers.
  const rowsFor = () => {
    const placed = new Map();
    let turn = -1;
    document.querySelectorAll("#chat .message-row").forEach((row) => {
      const mine = row.classList.contains("user-row");
      if (mine) turn += 1;
      for (const v of versions) {
        const taken = [...placed.values()].includes(v);
        if (!taken && v.turn === turn && (v.role === "user") === mine) placed.set(row, v);
      }
    });
    return placed;
  };
  const place = () => {
    const placed = rowsFor();
    document.querySelectorAll("#chat .smolui-versions").forEach((group) => {
      const v = placed.get(group.closest(".message-row"));
      if (!v || group.dataset.key !== key(v)) group.remove();
    });
    placed.forEach((v, row) => {
      let group = row.querySelector(":scope > .smolui-versions");
      if (!group) group = row.appendChild(switcher(v));
      focusAgain(group, v);
    });
  };
  window.smoluiVersions = (value) => {
    versions = Array.isArray(value) ? value : [];
    place();
  };
  // Other messages shown (a reload, another conversation, a turn's new rows): the server
  // is asked for their versions. What changed is noted as it happens, so a streaming answer
  // (changes inside one row of the agent's) costs no pass over the person's messages.
  let shown = null, rowsTouched = true, rowsMoved = true;
  const askWhenChanged = () => {
    const rows = [...document.querySelectorAll("#chat .message-row")];
    const now = rows.length + ":" + rows.filter((row) => row.classList.contains("user-row"))
      .map((row) => [...row.querySelectorAll('[data-testid="user"]')]
        .map((message) => (message.textContent || "").slice(0, 200)).join(" ")).join("|");
    if (now === shown) return;
    shown = now;
    const button = document.querySelector(".smolui-list-versions");
    if (button) button.click();
  };
  new MutationObserver((records) => {
    for (const record of records) {
      const target = record.target.nodeType === Node.ELEMENT_NODE
        ? record.target : record.target.parentElement;
      const chat = document.getElementById("chat");
      if (!target || !chat || !(chat.contains(target) || target.contains(chat))) continue;
      rowsTouched = true;
      const row = target.closest(".message-row");
      if (!row || row.classList.contains("user-row")) rowsMoved = true;
    }
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
  // A turn that ended may have made a version the rows do not show by their count (a Retry
  // queued behind a stopped turn replaces its answer in place): asked again then. Stop is
  // enabled exactly while a turn runs or waits.
  // A turn quicker than a tick (a fast model, a refusal) is seen by the button's own change:
  // a change of Stop's "disabled" from none (Stop was enabled: a turn ran) to disabled. A
  // page update that leaves it disabled (an empty send) is no turn: its old value is "".
  let running = false, ranSince = false;
  new MutationObserver((records) => {
    for (const record of records) {
      const stop = record.target.matches && record.target.matches(".stop-button");
      if (stop && record.oldValue === null) ranSince = true;
    }
  }).observe(document.body,
    {attributes: true, subtree: true, attributeFilter: ["disabled"], attributeOldValue: true});
  const turnEnded = () => {
    const stop = document.querySelector(".stop-button");
    const now = !!stop && !stop.disabled;
    const ended = (running || ranSince) && !now;
    running = now;
    ranSince = false;
    return ended;
  };
  // The inline edit of a message of the person's answers the keys of other chat apps: Enter
  // sends the edit, Shift+Enter makes a new line, Escape cancels (gradio sends it only from
  // its ✓ button). Its ✓ and ✕ are the first two buttons of the edited row's panel, named in
  // the browser's language: found by place, not by name.
  document.addEventListener("keydown", (event) => {
    const box = event.target;
    if (!box.matches || !box.matches("#chat textarea.edit-textarea")) return;
    if (event.isComposing || event.altKey || event.ctrlKey || event.metaKey) return;
    const send = event.key === "Enter" && !event.shiftKey;
    if (!send && event.key !== "Escape") return;
    const row = box.closest(".message-row");
    const [submit, cancel] = row ? row.querySelectorAll(".message-buttons button") : [];
    const button = send ? submit : cancel;
    if (!button) return;
    event.preventDefault();
    event.stopPropagation();  // Escape here is not the page's "stop the turn"
    if (!button.disabled) button.click();  // disabled while a turn runs, as gradio has it
  }, true);
  // gradio redraws the chat's rows as it streams: the switchers are put back.
  setInterval(() => {
    if (turnEnded()) shown = null;
    if (rowsMoved || shown === null) askWhenChanged();
    if (rowsTouched) place();
    rowsMoved = rowsTouched = false;
  }, 300);
}
