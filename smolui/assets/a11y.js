() => {
  // smolui's keyboard and screen-reader fixes over gradio's page: a skip link to the message
  // box, focus in the box once the page has loaded, names for unnamed controls, finished
  // steps no longer announced as busy, no untranslated keys in gradio's status region, past
  // conversations as one group for the keyboard, focus back in the box after a turn sent from
  // it (or from an example), focus on an approval card's Run for a turn sent from the box,
  // letters typed before the box is ready kept for it, focus in the box after "+ New chat".
  // Put in the page's <head> by smolui/ui/theme.py.
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
  // Nothing has the focus: the person has not put it anywhere (the box may take it).
  const nowhere = () => {
    const active = document.activeElement;
    return !active || active === document.body || active === document.documentElement;
  };
  // Puts text at the end of the box as typing would (gradio reads the box on "input").
  const typeInto = (box, text) => {
    const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set;
    setter.call(box, box.value + text);
    box.dispatchEvent(new Event("input", {bubbles: true}));
    box.setSelectionRange(box.value.length, box.value.length);
  };
  // The box is disabled while the page loads its conversation, so gradio's autofocus never
  // applies: the box takes focus as soon as it is first enabled, unless the person has
  // already put focus somewhere else. Letters typed before that (the focus on the page)
  // are kept and land in the box with it, so a quick typist loses none.
  let focused = false;
  let early = "";
  const focusOnce = () => {
    if (focused) return;
    const box = document.querySelector(BOX);
    if (!box || box.disabled) return;
    focused = true;
    if (nowhere()) {
      box.focus();
      if (early) typeInto(box, early);
    }
    early = "";
  };
  document.addEventListener("keydown", (event) => {
    if (focused || !nowhere() || event.isComposing) return;
    if (event.key.length !== 1 || event.ctrlKey || event.metaKey || event.altKey) return;
    event.preventDefault();  // a space would scroll the page
    early += event.key;
    focusOnce();  // the box may be enabled already, the focus not yet given
  }, true);
  // "+ New chat" (a click, or Enter or Space on it) leaves the person ready to type: the
  // focus goes to the box once gradio has taken the click and the box is enabled (a chat
  // left mid-turn enables it with its answer), unless the person has moved it meanwhile.
  const NEW_CHAT = ".new-chat-button";
  let newChat = false;
  document.addEventListener("click", (event) => {
    if (event.target.closest && event.target.closest(NEW_CHAT)) {
      newChat = true;
      setTimeout(focusForNewChat, 0);
    }
  });
  const focusForNewChat = () => {
    if (!newChat) return;
    const active = document.activeElement;
    const onButton = active && active.closest && active.closest(NEW_CHAT);
    if (!onButton && !nowhere()) { newChat = false; return; }
    const box = document.querySelector(BOX);
    if (!box || box.disabled) return;
    newChat = false;
    box.focus();
  };
  // A turn disables the box, and the browser then drops its focus on the page: a keyboard
  // user's next words went nowhere. A message sent from the box (Enter, or its own send
  // button) gets the focus back there once the box is enabled again, unless the person has
  // moved the focus to another control meanwhile: "sent" is the message on its way, "held"
  // once the box was seen disabled for it.
  let sent = false;
  let held = false;
  const SEND = "#message .submit-button";
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    if (event.target.matches && event.target.matches(BOX)) sent = true;
  }, true);
  // An example clicked is sent as a typed message is: its card hides with the chat's first
  // message, and the focus then comes to the box as after a message sent from it. Clicked
  // while the box is disabled (loading, or a turn runs), it does nothing: the page does not
  // even ask the server.
  const EXAMPLE = "#examples .gallery-item";
  document.addEventListener("click", (event) => {
    if (!event.target.closest) return;
    if (event.target.closest(SEND)) sent = true;
    if (!event.target.closest(EXAMPLE)) return;
    const box = document.querySelector(BOX);
    if (box && !box.disabled) {
      sent = true;
      return;
    }
    event.preventDefault();
    event.stopImmediatePropagation();
  }, true);
  document.addEventListener("focusin", (event) => {
    // Anywhere but the box is the person's choice; a message not sent from the box (an
    // empty one sends nothing) is forgotten once its box is left while still enabled.
    if (!event.target.matches || !event.target.matches(BOX)) sent = held = false;
  }, true);
  document.addEventListener("focusout", (event) => {
    if (event.target.matches && event.target.matches(BOX) && !event.target.disabled) {
      sent = false;
    }
  }, true);
  const focusBack = () => {
    if (!sent) return;
    const box = document.querySelector(BOX);
    if (!box) return;
    if (box.disabled) {
      held = true;
      return;
    }
    if (!held) return;
    sent = held = false;
    if (nowhere()) box.focus();
  };
  // An action waiting for approval shows a card under the chat while the box is disabled
  // (the focus is on the page): for a message sent from the box, the focus goes to the
  // card's first action (Run, described by the card's heading) as the card appears, unless
  // the person has put it somewhere. After the answer the box takes it back as for any turn.
  // A page opened (or reloaded) on a card already waiting does the same, until the person
  // first presses a key or the pointer: the focus the page gave the box moves to Run.
  const RUN = "#approval-run";
  let cardShown = false;
  let opening = true;
  const opened = () => { opening = false; };
  document.addEventListener("keydown", opened, true);
  document.addEventListener("pointerdown", opened, true);
  const focusCard = () => {
    const run = document.querySelector(RUN);
    const visible = !!run && run.getClientRects().length > 0;
    const appeared = visible && !cardShown;
    cardShown = visible;
    if (!visible) return;
    const given = opening && document.activeElement === document.querySelector(BOX);
    if (!(appeared && sent && nowhere()) && !(opening && (nowhere() || given))) return;
    opening = false;
    const keep = held;
    run.setAttribute("aria-describedby", "approval-heading");
    run.focus();
    sent = true;  // focusin forgot the message: the box still takes the focus at the end
    held = keep;
  };
  // The box's `disabled` flips as gradio's updates land: watched as it changes, so the
  // focus is back before the person types (the tick below also looks, should one be missed).
  const watchBox = () => {
    new MutationObserver(() => { focusOnce(); focusForNewChat(); focusBack(); focusCard(); })
      .observe(document.body, {subtree: true, attributes: true, attributeFilter: ["disabled"]});
  };
  // gradio's notice (toast) makes its header a button that folds the notice, with the Close
  // button inside it: a control within a control, which a screen reader cannot reach apart.
  // The header becomes a plain group (a click still folds it); Close stays the control.
  const plainToastHeaders = () => {
    document.querySelectorAll('.toast-header[role="button"]').forEach((header) => {
      header.setAttribute("role", "group");
      header.removeAttribute("tabindex");
    });
  };
  const watchToasts = () => {
    new MutationObserver(plainToastHeaders)
      .observe(document.body, {subtree: true, childList: true});
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
  // gradio's status region announces each finished event by a translation key its English
  // dictionary lacks ("common.complete"), which a screen reader would spell out. Such a key
  // is taken out as it arrives (the region then says nothing); gradio's own words stay. Only
  // the region's text node is changed: gradio keeps writing into it.
  const UNTRANSLATED = /^[a-z_]+(\.[a-z_]+)+$/;
  const quietKeys = (region) => {
    region.childNodes.forEach((node) => {
      if (node.nodeType === Node.TEXT_NODE && UNTRANSLATED.test(node.data.trim())) node.data = "";
    });
  };
  const watchStatus = () => {
    const region = document.querySelector('.sr-only[role="status"]');
    if (!region) return false;
    new MutationObserver(() => quietKeys(region))
      .observe(region, {childList: true, subtree: true, characterData: true});
    quietKeys(region);
    return true;
  };
  const findStatus = () => {  // the region comes with gradio's app, after this script
    if (watchStatus()) return;
    const finder = new MutationObserver(() => { if (watchStatus()) finder.disconnect(); });
    finder.observe(document.body, {childList: true, subtree: true});
  };
  // Past conversations are one radio group a keyboard user enters with one Tab: gradio names
  // each radio on its own (a group of one each), so every conversation was its own Tab stop
  // and arrows went nowhere. They share a name, one of them (the open conversation, else the
  // first) is the Tab stop, the arrow keys, Home and End move the focus, and Enter or Space
  // opens the focused conversation: walking the list opens nothing on the way.
  const LIST = ".conversation-list";
  const radios = () => [...document.querySelectorAll(LIST + ' input[type="radio"]')];
  const rove = (stop) => {
    const all = radios();
    const current = stop || all.find((radio) => radio.checked)
      || all.find((radio) => radio.tabIndex === 0) || all[0];
    all.forEach((radio) => {
      if (radio.name !== "smolui-conversations") radio.name = "smolui-conversations";
      const index = radio === current ? 0 : -1;
      if (radio.tabIndex !== index) radio.tabIndex = index;
    });
  };
  // Redrawn radios come as Tab stops: the focused one (if any) stays the group's stop.
  const roveFromFocus = () => {
    const focused = document.activeElement;
    rove(focused && focused.matches && focused.matches(LIST + " input") ? focused : null);
  };
  // The tick below sets the stops a moment after a redraw; a Tab pressed within that moment
  // (a quick keyboard user, a busy machine) sets them first, before the browser moves on.
  document.addEventListener("keydown", (event) => {
    if (event.key === "Tab") roveFromFocus();
  }, true);
  const MOVES = {ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1};
  document.addEventListener("keydown", (event) => {
    const radio = event.target;
    if (!radio.matches || !radio.matches(LIST + ' input[type="radio"]')) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const all = radios();
    const at = all.indexOf(radio);
    let next = null;
    if (event.key in MOVES) next = all[(at + MOVES[event.key] + all.length) % all.length];
    else if (event.key === "Home") next = all[0];
    else if (event.key === "End") next = all[all.length - 1];
    else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      if (!radio.checked) radio.click();  // as a click: gradio opens the conversation
      return;
    } else return;
    event.preventDefault();  // the browser's own arrows would open each one on the way
    rove(next);
    next.focus();
  }, true);
  // gradio's dropdown (an interactive one: the "Model for new chats" picker) keeps its list
  // of options open once the focus has left it by Tab, covering the controls below. Escape,
  // as a person would press it, closes the list; the focus stays where it went.
  document.addEventListener("focusout", (event) => {
    const left = event.target;
    if (!left.matches || !left.matches('input[role="combobox"]')) return;
    setTimeout(() => {
      if (document.activeElement === left) return;  // back in it (an option was picked)
      left.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    }, 0);
  }, true);
  const start = () => {
    skipLink();
    findStatus();
    watchBox();
    watchToasts();
    const tick = () => {
      focusOnce();
      focusForNewChat();
      focusBack();
      focusCard();
      nameControls();
      busyOnlyWhileRunning();
      roveFromFocus();
    };
    setInterval(tick, 250);
    tick();
  };
  if (document.body) start();
  else document.addEventListener("DOMContentLoaded", start);
}
