() => {
  // What the page scripts share to speak to a screen reader and to copy (run first of them):
  // `window.smoluiSay(text)` says `text` in the page's one polite status region (a repeat
  // is said again); `window.smoluiCopyText(text)` puts `text` on the clipboard, with a
  // fallback where the clipboard API is missing (a page on plain http from another host),
  // the focus left where it was, and resolves to whether it worked.
  window.smoluiSay = (text) => {
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
    setTimeout(() => { region.textContent = text; }, 50);
  };
  window.smoluiCopyText = async (text) => {
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
      if (back && back.focus) back.focus();
      return done;
    }
  };
}
