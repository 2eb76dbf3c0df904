// The console's script: live sections that refresh themselves, confirmations, the builder's
// live estimate, its schedule choices and its variants. Plain JavaScript, no framework; every
// page works without it, only less live. Served as one file with segment-builder.js and
// journey-editor.js (ConsoleAssets).
"use strict";
(function () {
  var csrf = document.querySelector('meta[name="csrf-token"]');
  var token = csrf ? csrf.getAttribute("content") : "";

  // Live sections: replaced by the server's fresh rendering until it says it is final.
  document.querySelectorAll("[data-live-url]").forEach(function (section) {
    var url = section.getAttribute("data-live-url");
    var every = parseInt(section.getAttribute("data-live-every") || "2000", 10);
    var status = document.getElementById("live-status");
    var last = section.innerHTML;
    function tick() {
      if (section.getAttribute("data-final") === "true") { return; }
      fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (response) {
          if (!response.ok) { throw new Error("HTTP " + response.status); }
          var final = response.headers.get("X-Herald-Final") === "true";
          return response.text().then(function (html) {
            // Unchanged figures leave the page alone: no flicker, no lost focus or selection.
            if (html !== last) {
              section.innerHTML = html;
              last = html;
            }
            section.setAttribute("data-final", final ? "true" : "false");
            if (status) { status.textContent = final ? "" : "Live"; status.className = "live"; }
          });
        })
        .catch(function () {
          if (status) { status.textContent = "Reconnecting…"; status.className = "live lost"; }
        })
        .then(function () { setTimeout(tick, every); });
    }
    setTimeout(tick, every);
  });

  // Forms that ask first (cancel, prune).
  document.addEventListener("submit", function (event) {
    var form = event.target;
    var question = form.getAttribute && form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) { event.preventDefault(); }
  }, true);

  // The builder's schedule: show the fields of the chosen mode only.
  var modes = document.querySelectorAll('input[name="schedule"]');
  function showMode() {
    modes.forEach(function (radio) {
      document.querySelectorAll('[data-schedule="' + radio.value + '"]').forEach(function (part) {
        part.hidden = !radio.checked;
      });
    });
  }
  modes.forEach(function (radio) { radio.addEventListener("change", showMode); });
  if (modes.length) { showMode(); }

  // The builder's variants: the rows in use, and one more on each "Add a variant".
  var variantRows = document.getElementById("variants");
  var addVariant = document.getElementById("add-variant");
  if (variantRows && addVariant) {
    var rows = variantRows.querySelectorAll("[data-variant-row]");
    var shown = parseInt(variantRows.getAttribute("data-in-use") || "2", 10);
    function showVariants() {
      rows.forEach(function (row, index) { row.hidden = index >= shown; });
      addVariant.hidden = shown >= rows.length;
    }
    addVariant.addEventListener("click", function () {
      shown = Math.min(shown + 1, rows.length);
      showVariants();
      var next = rows[shown - 1].querySelector("input");
      if (next) { next.focus(); }
    });
    showVariants();
  }

  // The builder's live estimate of matching devices.
  var builder = document.querySelector("form[data-estimate-url]");
  if (builder) {
    var output = document.getElementById("estimate");
    var timer = null;
    var estimate = function () {
      var body = new URLSearchParams(new FormData(builder));
      fetch(builder.getAttribute("data-estimate-url"), {
        method: "POST", credentials: "same-origin", body: body,
        headers: { "X-CSRF-Token": token, "Content-Type": "application/x-www-form-urlencoded" }
      })
        .then(function (response) { return response.text(); })
        .then(function (html) { output.innerHTML = html; })
        .catch(function () { output.textContent = "Estimate unavailable right now."; });
    };
    builder.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(estimate, 400); });
    builder.addEventListener("change", function () { clearTimeout(timer); timer = setTimeout(estimate, 100); });
    estimate();
  }
})();
