() => {
  // smolui's page behaviour: sidebar folded on narrow screens, Esc stops, live step timers.
  const NARROW = 900;
  const loadedAt = performance.now();
  let folded = false;
  const foldSidebar = () => {  // once, while the page loads: later the person decides
    if (folded || performance.now() - loadedAt > 10000 || window.innerWidth >= NARROW) return;
    const sidebar = document.querySelector(".sidebar.open");
    const toggle = sidebar && sidebar.querySelector(".toggle-button");
    if (toggle) { toggle.click(); folded = true; }
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
  // Svelte may re-create a title element on each update, so a step is known by its place.
  const started = new Map();
  const tick = () => {
    foldSidebar();
    const now = performance.now();
    const running = new Set();
    document.querySelectorAll("#chat .thought-group > .title").forEach((title, index) => {
      labelStep(title);
      if (!title.querySelector(".loading-spinner")) {
        if (title.hasAttribute("data-elapsed")) title.removeAttribute("data-elapsed");
        return;
      }
      const key = index + ":" + (title.textContent.match(/Step \d+/) || [""])[0];
      running.add(key);
      if (!started.has(key)) started.set(key, now);
      const seconds = (now - started.get(key)) / 1000;
      title.setAttribute("data-elapsed", seconds.toFixed(seconds < 10 ? 1 : 0) + " s");
    });
    for (const key of [...started.keys()]) if (!running.has(key)) started.delete(key);
  };
  setInterval(tick, 250);
  tick();
}
