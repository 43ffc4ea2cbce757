() => {
  // What the chat's copy buttons copy. gradio's copy on an answer copies its whole turn
  // (every step's thoughts, code and logs, and the footer's raw `<sub>` tags), and "Copy
  // conversation" writes one "assistant:" line per step, empty for most. The clicks are
  // taken here, before gradio sees them, and copy what the page shows as the answer.
  const announce = (text) => {
    let region = document.getElementById("smolui-announce");
    if (!region) {
      region = document.createElement("div");
      region.id = "smolui-announce";
      region.setAttribute("role", "status");
      region.style.cssText =
        "position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap";
      document.body.appendChild(region);
    }
    region.textContent = "";
    setTimeout(() => { region.textContent = text; }, 50);  // a repeat is announced again
  };
  const write = async (text) => {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch (error) {  // no clipboard API (a page served over plain http to another host)
      const area = document.createElement("textarea");
      area.value = text;
      area.style.cssText = "position:fixed;left:-9999px";
      document.body.appendChild(area);
      area.select();
      const done = document.execCommand("copy");
      area.remove();
      return done;
    }
  };
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
}
