() => {
  // The share controls for the keyboard and a screen reader (smolui/ui/share.py draws them):
  // "Stop sharing" takes itself off the page once the links are revoked, which left the
  // focus nowhere (a keyboard user started again from the top): the focus goes to "Share a
  // read-only link", where sharing starts again, and the page says sharing stopped. The
  // link's Copy button showed only a check mark: it now says whether the link was copied.
  const STOP = ".share-stop";
  const SHARE = ".share-button";
  const COPY = '.share-link button[aria-label="Copy"]';
  const STOPPED = "Sharing stopped: the link no longer opens.";
  // The page's one polite status region (copy.js makes the same one, by its id).
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
  const shown = (element) => !!element && element.getClientRects().length > 0;
  const nowhere = () => {
    const active = document.activeElement;
    return !active || active === document.body || active === document.documentElement;
  };
  // After a press of Stop, the server revokes the links and the page then drops the button:
  // watched as the page changes, so the focus lands before the next key. While the button
  // stays (the server said no, in a notice) nothing moves, and once the person puts the
  // focus elsewhere the press is forgotten (another conversation may hide the button later).
  let watching = null;
  const forget = () => {
    if (watching) watching.disconnect();
    watching = null;
  };
  const stopped = () => {
    if (shown(document.querySelector(STOP))) return;
    forget();
    const share = document.querySelector(SHARE);
    if (share && nowhere()) share.focus();
    announce(STOPPED);
  };
  const watchStop = () => {
    if (watching) return;
    watching = new MutationObserver(stopped);
    watching.observe(document.body, {subtree: true, childList: true, attributes: true,
      attributeFilter: ["class", "style", "hidden"]});
  };
  // gradio's own Copy writes the link where the browser lets it (and shows its check mark);
  // this writes it too, with a fallback where the clipboard API is missing (a page on plain
  // http from another host), and says how it went.
  const write = async (text) => {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch (error) {
      const back = document.activeElement;
      const area = document.createElement("textarea");
      area.value = text;
      area.style.cssText = "position:fixed;left:-9999px";
      document.body.appendChild(area);
      area.select();
      let done = false;
      try { done = document.execCommand("copy"); } catch (refused) { done = false; }
      area.remove();
      if (back && back.focus) back.focus();  // the Copy button keeps the focus
      return done;
    }
  };
  const copyLink = () => {
    const box = document.querySelector(".share-link input, .share-link textarea");
    const link = box ? box.value : "";
    if (!link) {
      announce("Could not copy: no link yet");
      return;
    }
    write(link).then((done) => announce(done ? "Link copied" : "Could not copy"));
  };
  document.addEventListener("focusin", (event) => {
    const target = event.target;
    if (watching && !(target.closest && target.closest(STOP))) forget();
  }, true);
  document.addEventListener("click", (event) => {
    const target = event.target.closest ? event.target : event.target.parentElement;
    if (!target) return;
    if (target.closest(STOP)) watchStop();
    else if (target.closest(COPY)) copyLink();
  }, true);
}
