// Filters that apply as soon as they change: the search page asks the same URL for its
// filters and results alone (the HX-Request header), swaps them in place and puts the
// canonical address (HX-Push-Url) in the history. Without this script the form's
// "Apply filters" button does the same with a full page load.
// The words typed in the search box are searched on Enter or "Search", not on change;
// a minimum salary waits for its currency (one without the other is refused).
(function () {
  "use strict";
  var form = document.getElementById("search-form");
  if (!form || !window.fetch || !window.DOMParser || !window.AbortController) return;
  var pending = null;
  var shown = window.location.search;

  function address() {
    var found = new URLSearchParams();
    new FormData(form).forEach(function (value, key) {
      if (value !== "") found.append(key, value);
    });
    var text = found.toString();
    return text ? "/?" + text : "/";
  }

  function salaryHalfDone(target) {
    if (target.name !== "salary_min" && target.name !== "salary_currency") return false;
    var low = form.elements.salary_min.value, currency = form.elements.salary_currency.value;
    return (low === "") !== (currency === "");
  }

  function remembered() {
    var focused = document.activeElement;
    var opened = [];
    form.querySelectorAll("details[open]").forEach(function (d) {
      if (d.parentElement && d.parentElement.id) opened.push(d.parentElement.id);
    });
    return {
      name: focused && focused.name, value: focused && focused.value, id: focused && focused.id,
      opened: opened,
    };
  }

  function restore(state) {
    state.opened.forEach(function (id) {
      var details = document.querySelector("#" + id + " details");
      if (details) details.open = true;
    });
    var again = null;
    if (state.name) {
      form.querySelectorAll('[name="' + state.name + '"]').forEach(function (e) {
        if (e.value === state.value || e.tagName === "SELECT") again = again || e;
      });
    } else if (state.id) {
      again = document.getElementById(state.id);
    }
    if (again) again.focus();
  }

  function swap(url, push) {
    if (pending) pending.abort();
    pending = new AbortController();
    var state = remembered();
    document.getElementById("results").setAttribute("aria-busy", "true");
    fetch(url, { headers: { "HX-Request": "true" }, signal: pending.signal })
      .then(function (response) {
        // An error has its own page, which says what to change.
        if (!response.ok) { window.location.assign(url); return null; }
        var canonical = response.headers.get("HX-Push-Url") || url;
        return response.text().then(function (text) {
          var found = new DOMParser().parseFromString(text, "text/html");
          ["filters", "results"].forEach(function (id) {
            var fresh = found.getElementById(id);
            if (fresh) document.getElementById(id).innerHTML = fresh.innerHTML;
          });
          if (found.title) document.title = found.title;
          var target = canonical.split("#")[0];
          shown = target.indexOf("?") >= 0 ? target.slice(target.indexOf("?")) : "";
          if (push) window.history.pushState(null, "", target + window.location.hash);
          restore(state);
          enhanceFinders();
        });
      })
      .catch(function (error) {
        if (error.name !== "AbortError") window.location.assign(url);
      })
      .finally(function () {
        document.getElementById("results").removeAttribute("aria-busy");
      });
  }

  // A box that narrows a long facet's values as one types (not a filter itself).
  function enhanceFinders() {
    form.querySelectorAll(".finder").forEach(function (label) {
      label.hidden = false;
      var box = label.querySelector("input");
      box.addEventListener("input", function () {
        var words = box.value.trim().toLowerCase();
        var group = document.getElementById(box.getAttribute("data-facet"));
        group.querySelectorAll(".option").forEach(function (option) {
          var text = option.textContent.toLowerCase();
          option.hidden = words !== "" && text.indexOf(words) < 0;
        });
      });
    });
  }

  form.addEventListener("change", function (event) {
    var target = event.target;
    if (!target.name || target.name === "q" || salaryHalfDone(target)) return;
    swap(address(), true);
  });
  window.addEventListener("popstate", function () {
    // A jump to #filters or #results is a history entry too: only another search counts.
    if (window.location.search === shown) return;
    shown = window.location.search;
    swap(window.location.pathname + window.location.search, false);
  });
  enhanceFinders();
})();
