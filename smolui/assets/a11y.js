() => {
  // smolui's keyboard and screen-reader fixes over gradio's page: a skip link to the message
  // box, focus in the box once the page has loaded, names for unnamed controls, finished
  // steps no longer announced as busy. Put in the page's <head> by smolui/ui/theme.py.
  const BOX = "#message textarea";
  // The first link of the page: Tab once, Enter, and the cursor is in the message box
  // (the sidebar's conversations come before the box in the page's order).
  const skipLink = () => {
    if (document.querySelector(".smolui-skip")) return;
    const link = document.createElement("a");
    link.className = "smolui-skip";
    link.href = "#message";
    link.textContent = "Skip to the message box";
    link.addEventListener("click", (event) => {
      const box = document.querySelector(BOX);
      if (!box) return;
      event.preventDefault();
      box.focus();
    });
    document.body.prepend(link);
  };
  // The box is disabled while the page loads its conversation, so gradio's autofocus never
  // applies: the box takes focus the first time it is enabled, unless the person has
  // already put focus somewhere else.
  let focused = false;
  const focusOnce = () => {
    if (focused) return;
    const box = document.querySelector(BOX);
    if (!box || box.disabled) return;
    focused = true;
    const active = document.activeElement;
    if (!active || active === document.body || active === document.documentElement) box.focus();
  };
  const name = (element, text) => {
    if (element && element.getAttribute("aria-label") !== text) {
      element.setAttribute("aria-label", text);
    }
  };
  const nameControls = () => {
    name(document.querySelector(BOX), "Message to the agent");
    // An image in the chat sits in a bare button (it opens the image); its img has no alt.
    document.querySelectorAll("#chat .image-container > button:not([aria-label])")
      .forEach((button) => name(button, "Image made by the agent"));
    document.querySelectorAll('#chat .image-container img[alt=""]')
      .forEach((image) => image.setAttribute("alt", "Image made by the agent"));
  };
  // gradio marks a step's title busy while its message text is empty, which a step's
  // always is (its details are its children): only a step with a spinner is busy. Only the
  // titles marked busy are looked at, so a long chat's finished steps cost nothing here.
  const busyOnlyWhileRunning = () => {
    document.querySelectorAll('#chat .thought-group > .title[aria-busy="true"]')
      .forEach((title) => {
        if (!title.querySelector(".loading-spinner")) title.setAttribute("aria-busy", "false");
      });
    document.querySelectorAll("#chat .thought-group > .title .loading-spinner").forEach((spinner) => {
      const title = spinner.closest(".title");  // a redrawn, running step
      if (title.getAttribute("aria-busy") === "false") title.setAttribute("aria-busy", "true");
    });
  };
  const start = () => {
    skipLink();
    const tick = () => {
      focusOnce();
      nameControls();
      busyOnlyWhileRunning();
    };
    setInterval(tick, 250);
    tick();
  };
  if (document.body) start();
  else document.addEventListener("DOMContentLoaded", start);
}
