() => {
  // smolui's page behaviour: sidebar folded on narrow screens (and again once a conversation
  // is picked there), Esc stops, live step timers, the chat's trash is Clear, Clear and
  // Delete ask first, the pencil on messages without files, one row
  // of buttons per turn under its answer (with a copy button), the upload size limit in the
  // app's own words.
  const NARROW = 900;
  const loadedAt = performance.now();
  let folded = false;
  const foldSidebar = () => {  // once, while the page loads: later the person decides
    if (folded || performance.now() - loadedAt > 10000 || window.innerWidth >= NARROW) return;
    const sidebar = document.querySelector(".sidebar.open");
    const toggle = sidebar && sidebar.querySelector(".toggle-button");
    if (toggle) { toggle.click(); folded = true; }
  };
  // An empty box (no text, no file) sends nothing, without asking the server: gradio takes
  // no other message while that empty one's answer is on its way, so a message typed and
  // sent just after it (on a slow server) was silently dropped.
  const MESSAGE = "#message textarea";
  const emptyBox = () => {
    const box = document.querySelector(MESSAGE);
    return Boolean(box) && !box.value.trim()
      && !document.querySelector("#message .thumbnail-wrapper");
  };
  const refuse = (event) => {
    event.preventDefault();
    event.stopImmediatePropagation();
  };
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    if (event.target.matches && event.target.matches(MESSAGE) && emptyBox()) refuse(event);
  }, true);
  document.addEventListener("click", (event) => {
    const target = event.target.closest ? event.target : event.target.parentElement;
    if (target && target.closest("#message .submit-button") && emptyBox()) refuse(event);
  }, true);
  let foldPending = false;
  // On a narrow screen the open sidebar covers the chat: a conversation picked there, or a
  // new one, is shown by folding it. Only a pointer's click (detail > 0): arrow keys walk the
  // list one conversation at a time, and folding would leave the focus on a hidden control.
  document.addEventListener("click", (event) => {
    if (event.detail === 0 || window.innerWidth >= NARROW) return;
    const target = event.target.closest ? event.target : event.target.parentElement;
    if (foldPending || !target || !target.closest(".sidebar.open")) return;
    if (!target.closest(".conversation-list label, .new-chat-button")) return;
    foldPending = true;  // a label's click reaches its radio as a second click
    setTimeout(() => {  // after gradio has taken the click
      foldPending = false;
      const toggle = document.querySelector(".sidebar.open .toggle-button");
      if (toggle) toggle.click();
    }, 0);
  });
  // Clear asks first; "Cancel" stops the click here, before gradio sees it (an event
  // cancelled inside gradio would leave an error over the chat). The chat's own trash icon
  // does what Clear does: the click goes to the Clear button instead of only hiding the chat.
  const CLEAR_QUESTION =
    "Clear this conversation? The agent forgets it and its files are removed.";
  document.addEventListener("click", (event) => {
    const target = event.target.closest ? event.target : event.target.parentElement;
    const trash = target && target.closest('#chat .top-panel button[aria-label="Clear"]');
    const clear = document.querySelector(".clear-button");
    if (trash && clear) {
      event.preventDefault();
      event.stopImmediatePropagation();
      clear.click();
    } else if (clear && target && target.closest(".clear-button") === clear
               && !window.confirm(CLEAR_QUESTION)) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);
  // Delete and Delete all ask the same way (a button pressed with Enter or Space is a
  // click too, so the keyboard gets the same question). Delete names the conversation by its
  // title, its date said once after it: the list's label is "<title> · <date>"
  // (smolui/handlers/conversations.py), and the date never holds " · ".
  const UNDONE = "This cannot be undone.";
  const DELETE_QUESTION = `Delete this conversation? ${UNDONE}`;
  // Delete all says how many: the list shows every conversation unless a search narrows it.
  const deleteAllQuestion = () => {
    const shown = document.querySelectorAll(".conversation-list label").length;
    const search = document.querySelector(".conversation-search textarea, .conversation-search input");
    if (search && search.value.trim()) {
      return `Delete all your conversations, not only the ${shown} this search found? ${UNDONE}`;
    }
    if (shown === 1) return `Delete your only conversation? ${UNDONE}`;
    return `Delete all ${shown} of your conversations? ${UNDONE}`;
  };
  const deleteQuestion = (target) => {
    if (target.closest(".delete-all-button")) return deleteAllQuestion();
    if (!target.closest(".conversation-manage .delete-button")) return null;
    const label = document.querySelector(".conversation-list input:checked")?.closest("label");
    const text = label ? label.textContent.trim() : "";
    if (!text) return DELETE_QUESTION;
    const cut = text.lastIndexOf(" · ");
    const title = cut > 0 ? text.slice(0, cut) : text;
    const when = cut > 0 ? ` (${text.slice(cut + 3)})` : "";
    return `Delete \u201c${title}\u201d${when}? ${UNDONE}`;
  };
  document.addEventListener("click", (event) => {
    const target = event.target.closest ? event.target : event.target.parentElement;
    const asked = target && deleteQuestion(target);
    if (asked && !window.confirm(asked)) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);
  // Attachment chips (name, type, size, refusal) are smolui/assets/chips.js's.
  // gradio offers the pencil on every message the visitor wrote; any of them can be edited
  // (a stored conversation branches there: smolui/handlers/message_actions.py), only when
  // it carries no file.
  const editOnlyLast = (row) => {
    const editable = !row.querySelector(".file-container, del");
    row.querySelectorAll('button[aria-label="Edit"]').forEach((button) => {
      button.style.display = editable ? "" : "none";
    });
    // A message whose every button is hidden (Share by the styles, Edit above) would
    // keep an empty button frame: a stray dot beside it.
    row.querySelectorAll(".message-buttons").forEach((panel) => {
      const shown = [...panel.querySelectorAll("button")].some((button) =>
        button.style.display !== "none" && button.getAttribute("aria-label") !== "Share");
      const display = shown ? "" : "none";
      if (panel.style.display !== display) panel.style.display = display;
    });
  };
  // gradio repeats the answer's buttons (copy, retry, undo) under every message of a turn:
  // each step, note and the footer. Only the answer keeps them (the message before the
  // footer, or the last one of a turn that ended without an answer). The list of files the
  // code wrote comes after the footer: it is not the answer either.
  const oneButtonRow = (row) => {
    const panels = [...row.querySelectorAll(".message-buttons")];
    const owner = (panel) => panel.previousElementSibling;
    const footer = (panel) => owner(panel) && owner(panel).querySelector("sub")
      && !owner(panel).querySelector(".thought-group");
    const filesOut = (panel) => owner(panel) && owner(panel).querySelector(FILES_OUT);
    let last = panels.length - 1;
    while (last > 0 && filesOut(panels[last])) last -= 1;
    const kept = last > 0 && footer(panels[last]) ? panels[last - 1] : panels[last];
    panels.forEach((panel) => {
      const display = panel === kept ? "" : "none";
      if (panel.style.display !== display) panel.style.display = display;
    });
    if (kept) answerButtons(kept);
  };
  // gradio gives a turn its copy button only when every message of the turn is text, and its
  // Download saves the turn's first file: after a step that drew a figure, a text answer had
  // no copy and a Download of that step's figure. The answer gets a copy button (copy.js
  // copies what it shows) and a Download only when it is itself a picture or a file.
  const FILES_OUT = 'a[href*="/smolui/files/"]';  // smolui/api/file_routes.py FILES_PREFIX
  const COPY_ICON = '<svg xmlns="http://www.w3.org/2000/svg" width="100%" height="100%" '
    + 'viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" '
    + 'aria-hidden="true"><rect x="9" y="9" width="13" height="13" rx="2"/>'
    + '<path d="M5 15H4a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2h9a2 2 0 0 1 2 2v1"/></svg>';
  const answerButtons = (panel) => {
    const answer = panel.previousElementSibling;
    const wrapper = panel.querySelector(".icon-button-wrapper");
    if (!answer || !wrapper) return;
    const media = answer.querySelector("img, audio, video, .file-container");
    const download = wrapper.querySelector('[data-testid="download-link"]');
    const display = media ? "" : "none";
    if (download && download.style.display !== display) download.style.display = display;
    const copies = wrapper.querySelector(
      'button[aria-label="Copy message"], button[aria-label="Copied message"]');
    const model = wrapper.querySelector("button.icon-button");
    if (media || copies || !model) return;
    const button = model.cloneNode(false);  // gradio's look (its scoped classes), no handlers
    button.removeAttribute("disabled");
    button.style.display = "";
    button.setAttribute("aria-label", "Copy message");
    button.title = "Copy message";
    button.classList.add("smolui-copy");
    const inner = document.createElement("div");
    inner.className = model.firstElementChild ? model.firstElementChild.className : "";
    inner.innerHTML = COPY_ICON;
    button.appendChild(inner);
    wrapper.prepend(button);
  };
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    const stop = document.querySelector(".stop-button");
    if (stop && !stop.disabled) { event.preventDefault(); stop.click(); }
  });
  // gradio nests an unnamed arrow button inside a focusable role=button title row. The
  // arrow becomes the one named control (its click still toggles the row); the row is plain.
  const labelStep = (title) => {
    const arrow = title.querySelector(".arrow button");
    const open = title.classList.contains("expanded") ? "true" : "false";
    if (title.getAttribute("role") === "button") {
      title.removeAttribute("role");
      title.setAttribute("tabindex", "-1");
    }
    if (!arrow) return;
    const name = "Show or hide details: " + title.textContent.trim().replace(/\s+/g, " ");
    if (arrow.getAttribute("aria-label") !== name) arrow.setAttribute("aria-label", name);
    if (arrow.getAttribute("aria-expanded") !== open) arrow.setAttribute("aria-expanded", open);
  };
  // Code that scrolls sideways can be scrolled with the keyboard too: it takes focus.
  const focusableScrolling = (row) => {
    row.querySelectorAll("pre").forEach((pre) => {
      if (pre.scrollWidth > pre.clientWidth + 1 && !pre.hasAttribute("tabindex")) {
        pre.setAttribute("tabindex", "0");
      }
    });
  };
  // The chat's rows that changed since the last tick: gradio redraws only what changed, so
  // the per-message work follows the turn, not the length of the conversation.
  const changed = new Set();
  const noteRows = (node) => {
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    const row = node.closest(".message-row");
    if (row) changed.add(row);
    else node.querySelectorAll(".message-row").forEach((found) => changed.add(found));
  };
  // A step that has just ended loses its spinner and gets its own duration in one redraw:
  // its live timer goes in the same breath, before the browser paints, never a tick later
  // (the title would be drawn once with both times: "715 ms  711 ms").
  const settleTimers = () => {
    document.querySelectorAll("#chat .thought-group > .title[data-elapsed]").forEach((title) => {
      if (!title.querySelector(".loading-spinner")) title.removeAttribute("data-elapsed");
    });
  };
  new MutationObserver((records) => {
    settleTimers();
    for (const record of records) {
      const target = record.target.nodeType === Node.ELEMENT_NODE
        ? record.target : record.target.parentElement;
      const row = target && target.closest(".message-row");
      if (row) changed.add(row);
      else record.addedNodes.forEach(noteRows);
    }
  }).observe(document.body, {
    childList: true, subtree: true, characterData: true, attributes: true,
    attributeFilter: ["class"],  // a step opened or closed (our own writes are not classes)
  });
  document.querySelectorAll("#chat .message-row").forEach((row) => changed.add(row));
  const changedRows = () => {
    const rows = [...changed].filter((row) => row.isConnected && row.closest("#chat"));
    changed.clear();
    return rows;
  };
  // A duration as smolui/durations.py writes it: 20 ms, 1.7 s, 12 s, 2 min 5 s.
  const duration = (seconds) => {
    const millis = Math.round(seconds * 1000);
    if (millis < 1000) return millis < 1 ? "<1 ms" : millis + " ms";
    if (Math.round(seconds * 10) < 100) return (Math.round(seconds * 10) / 10).toFixed(1) + " s";
    const whole = Math.round(seconds);
    if (whole < 60) return whole + " s";
    const rest = whole % 60;
    return Math.floor(whole / 60) + " min" + (rest ? " " + rest + " s" : "");
  };
  // gradio refuses a file over the size limit in its own words ("25.0 Mb"); the app, its
  // settings and the README say "25 MB".
  const sizeInOurWords = () => {
    document.querySelectorAll('[data-testid="toast-text"]').forEach((node) => {
      const text = node.textContent;
      const ours = text.replace(/(\d+(?:\.\d+)?) Mb\b/g, (_, size) => parseFloat(size) + " MB");
      if (ours !== text) node.textContent = ours;
    });
  };
  // A running step's title says when the step began (class "since-<ms since the epoch>",
  // smolui/render/durations.py): the time shown goes on across reloads and tabs. A title
  // without it (an approval waiting) counts from when this page first saw it; Svelte may
  // re-create a title element on each update, so such a step is known by its place.
  const started = new Map();
  const elapsed = (title, key, now) => {
    const stamp = title.querySelector(".step-clock");
    const since = stamp && stamp.className.match(/\bsince-(\d+)\b/);
    // A browser clock behind the server's would show a negative time: never below 0.
    if (since) return Math.max(0, (Date.now() - Number(since[1])) / 1000);
    if (!started.has(key)) started.set(key, now);
    return (now - started.get(key)) / 1000;
  };
  const tick = () => {
    foldSidebar();
    sizeInOurWords();
    changedRows().forEach((row) => {
      if (row.classList.contains("user-row")) editOnlyLast(row);
      else if (row.classList.contains("bot-row")) oneButtonRow(row);
      focusableScrolling(row);
      row.querySelectorAll(".thought-group > .title").forEach(labelStep);
    });
    settleTimers();
    // Running steps only; a step is known by its place among all steps.
    const spinning = document.querySelectorAll("#chat .thought-group > .title .loading-spinner");
    if (!spinning.length) {
      started.clear();
      return;
    }
    const titles = [...document.querySelectorAll("#chat .thought-group > .title")];
    const now = performance.now();
    const running = new Set();
    spinning.forEach((spinner) => {
      const title = spinner.closest(".title");
      const key = titles.indexOf(title) + ":" + (title.textContent.match(/Step \d+/) || [""])[0];
      running.add(key);
      title.setAttribute("data-elapsed", duration(elapsed(title, key, now)));
    });
    for (const key of [...started.keys()]) if (!running.has(key)) started.delete(key);
  };
  setInterval(tick, 250);
  tick();
}
