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
  const announce = window.smoluiSay, write = window.smoluiCopyText;  // speak.js
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
  // this writes it too (`write` falls back where the clipboard API is missing) and says how
  // it went.
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
