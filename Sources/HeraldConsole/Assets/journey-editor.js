// The journey editor (docs/journeys.md): as the JSON is typed, `/console/journeys/validate`
// checks it and answers the problem (at its step, marked in the last drawing) or a drawing of
// the graph, shown under it.
(function () {
  var textarea = document.getElementById("journey-json");
  var check = document.getElementById("journey-check");
  var preview = document.getElementById("journey-preview");
  if (!textarea || !check || !preview) { return; }
  var csrf = document.querySelector('meta[name="csrf-token"]');
  var token = csrf ? csrf.getAttribute("content") : "";
  var timer = null;
  function validate() {
    clearTimeout(timer);
    timer = setTimeout(function () {
      if (textarea.value.trim() === "") { return; }
      var body = new URLSearchParams({ app: textarea.getAttribute("data-app"), journey: textarea.value });
      fetch(textarea.getAttribute("data-validate-url"), {
        method: "POST", credentials: "same-origin", body: body,
        headers: { "X-CSRF-Token": token, "Content-Type": "application/x-www-form-urlencoded" }
      })
        .then(function (response) { return response.json(); })
        .then(function (answer) {
          check.className = answer.problem ? "notice error" : "notice";
          check.textContent = answer.problem || answer.summary;
          preview.classList.toggle("stale", !!answer.problem);
          if (!answer.problem) {
            preview.innerHTML = answer.drawing || "";
            return;
          }
          // A graph with a problem cannot be drawn: the last drawing stays, with the step the
          // problem is at marked, when it has that step.
          Array.prototype.forEach.call(preview.querySelectorAll(".step.marked"), function (box) {
            box.classList.remove("marked");
          });
          var field = answer.field || "";
          if (field.indexOf("steps.") === 0) {
            var box = document.getElementById("step-" + field.split(".")[1]);
            if (box && preview.contains(box)) { box.classList.add("marked"); }
          }
        })
        .catch(function () { check.textContent = "The check is unavailable right now."; });
    }, 300);
  }
  textarea.addEventListener("input", validate);
  validate();
})();
