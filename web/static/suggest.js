// The search box as an ARIA 1.2 combobox over /api/suggest (a list of links): the
// page works without this script (the box is a plain search field then), and with it
// the box offers titles, companies, skills and places while a visitor types.
// Keys: Down/Up move through the suggestions, Enter opens the one chosen (or searches
// for what was typed when none is), Escape closes the list, Tab leaves it.
(function () {
  "use strict";
  var input = document.getElementById("q");
  var list = document.getElementById("q-suggestions");
  var status = document.getElementById("q-suggestions-status");
  if (!input || !list || !status || !window.fetch) return;

  input.setAttribute("role", "combobox");
  input.setAttribute("aria-autocomplete", "list");
  input.setAttribute("aria-controls", list.id);
  input.setAttribute("aria-expanded", "false");
  input.setAttribute("autocomplete", "off");

  var active = -1;
  var timer = null;
  var asked = "";
  var options = function () { return list.querySelectorAll('[role="option"]'); };

  function close() {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  }

  function choose(index) {
    var found = options();
    if (!found.length) return;
    active = (index + found.length) % found.length;
    for (var i = 0; i < found.length; i++) {
      found[i].setAttribute("aria-selected", i === active ? "true" : "false");
    }
    input.setAttribute("aria-activedescendant", found[active].id);
    found[active].scrollIntoView({ block: "nearest" });
  }

  // The page's words for these, in its language (data-* on the list, see search.html).
  function said(name, values) {
    return (list.dataset[name] || "").replace(/\{(\w+)\}/g, function (_, key) {
      return String(values[key]);
    });
  }

  function show(suggestions) {
    list.textContent = "";
    suggestions.forEach(function (s, i) {
      var item = document.createElement("li");
      item.id = "q-suggestion-" + i;
      item.setAttribute("role", "option");
      item.setAttribute("aria-selected", "false");
      item.dataset.url = s.url;
      var label = document.createElement("span");
      label.className = "suggestion-label";
      label.textContent = s.label;
      var meta = document.createElement("span");
      meta.className = "suggestion-meta";
      meta.textContent = said(s.count === 1 ? "jobOne" : "jobMany", {
        kind: list.dataset["kind" + s.kind.charAt(0).toUpperCase() + s.kind.slice(1)] || s.kind,
        count: s.count.toLocaleString(document.documentElement.lang || "en"),
      });
      item.appendChild(label);
      item.appendChild(document.createTextNode(" "));
      item.appendChild(meta);
      item.addEventListener("mousedown", function (event) {
        event.preventDefault(); // keep the focus in the box until the page changes
        window.location.assign(s.url);
      });
      list.appendChild(item);
    });
    active = -1;
    input.removeAttribute("aria-activedescendant");
    list.hidden = suggestions.length === 0;
    input.setAttribute("aria-expanded", suggestions.length ? "true" : "false");
    status.textContent = suggestions.length
      ? said(suggestions.length === 1 ? "statusOne" : "statusMany", { count: suggestions.length })
      : "";
  }

  function ask() {
    var typed = input.value;
    if (typed === asked) return;
    asked = typed;
    if (typed.trim().length < 2) { show([]); return; }
    fetch("/api/suggest?" + new URLSearchParams({ q: typed.slice(0, 60) }), {
      headers: { Accept: "application/json" },
    })
      .then(function (response) { return response.ok ? response.json() : { suggestions: [] }; })
      .then(function (body) { if (input.value === typed) show(body.suggestions || []); })
      .catch(function () { show([]); });
  }

  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(ask, 120);
  });
  input.addEventListener("keydown", function (event) {
    var open = !list.hidden;
    if (event.key === "ArrowDown") {
      event.preventDefault();
      if (open) choose(active + 1); else { asked = ""; ask(); }
    } else if (event.key === "ArrowUp" && open) {
      event.preventDefault();
      choose(active - 1);
    } else if (event.key === "Enter" && open && active >= 0) {
      event.preventDefault();
      window.location.assign(options()[active].dataset.url);
    } else if (event.key === "Escape" && open) {
      event.preventDefault();
      close();
    } else if (event.key === "Tab") {
      close();
    }
  });
  input.addEventListener("blur", function () { setTimeout(close, 0); });
})();
