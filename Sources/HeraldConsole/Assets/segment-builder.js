// The segment builder (docs/segments.md): conditions and `all` / `any` / `not` groups drawn
// over the segment's JSON, which it rewrites on every change; the live count and sample
// from `/console/segments/evaluate`. JSON it cannot draw stays editable as text.
(function () {
  var root = document.getElementById("segment-builder");
  var textarea = document.getElementById("segment-json");
  if (!root || !textarea) { return; }
  var csrf = document.querySelector('meta[name="csrf-token"]');
  var token = csrf ? csrf.getAttribute("content") : "";
  var countOutput = document.getElementById("segment-count");
  var sampleOutput = document.getElementById("segment-sample");
  var kinds = [
    ["attribute", "Attribute"], ["language", "Language"], ["timeZone", "Time zone"], ["environment", "Environment"],
    ["registered", "Registered"], ["userID", "User ID"], ["received", "Received a push"], ["opened", "Opened a push"],
    ["converted", "Converted"], ["event", "Did a custom event"]
  ];
  var operators = ["eq", "ne", "gt", "gte", "lt", "lte", "in", "contains", "startsWith", "exists"];

  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (key) { node.setAttribute(key, attributes[key]); });
    (children || []).forEach(function (child) { node.appendChild(typeof child === "string" ? document.createTextNode(child) : child); });
    return node;
  }
  function select(options, value, label) {
    var node = el("select", { "aria-label": label });
    options.forEach(function (option) {
      var item = el("option", { value: option[0] }, [option[1]]);
      if (option[0] === value) { item.selected = true; }
      node.appendChild(item);
    });
    return node;
  }
  function input(value, placeholder, label) {
    var node = el("input", { placeholder: placeholder || "", "aria-label": label });
    node.value = value === undefined || value === null ? "" : String(value);
    return node;
  }
  // A typed value from text: numbers and booleans as themselves, the rest as text.
  function typed(text) {
    if (text === "true") { return true; }
    if (text === "false") { return false; }
    if (text.trim() !== "" && !isNaN(Number(text))) { return Number(text); }
    return text;
  }
  function days(text) { return text.trim() === "" ? undefined : parseInt(text, 10); }
  function list(text) { return text.split(",").map(function (part) { return part.trim(); }).filter(function (part) { return part; }); }

  // The tree: {group: "all"|"any"|"not", children: [...]} or {kind, ...fields}.
  function fromJSON(json) {
    if (json && json.all) { return { group: "all", children: json.all.map(fromJSON) }; }
    if (json && json.any) { return { group: "any", children: json.any.map(fromJSON) }; }
    if (json && json.not) { return { group: "not", children: [fromJSON(json.not)] }; }
    if (json && json.attribute !== undefined) {
      var op = operators.filter(function (name) { return json[name] !== undefined; })[0] || "eq";
      var value = json[op];
      return { kind: "attribute", key: json.attribute, op: op, value: Array.isArray(value) ? value.join(", ") : String(value) };
    }
    if (json && json.language !== undefined) { return { kind: "language", tag: json.language, match: json.match || "any" }; }
    if (json && json.timeZone) { return { kind: "timeZone", zones: json.timeZone.join(", ") }; }
    if (json && json.environment) { return { kind: "environment", environment: json.environment }; }
    if (json && json.registered) {
      var test = json.registered;
      if (test.withinDays !== undefined) { return { kind: "registered", test: "withinDays", value: String(test.withinDays) }; }
      return { kind: "registered", test: test.after ? "after" : "before", value: test.after || test.before };
    }
    if (json && json.userID) {
      return json.userID.in ? { kind: "userID", test: "in", value: json.userID.in.join(", ") }
        : { kind: "userID", test: json.userID.exists ? "exists" : "missing", value: "" };
    }
    if (json && json.event) {
      return { kind: "event", name: json.event.name || "", withinDays: json.event.withinDays === undefined ? "" : String(json.event.withinDays) };
    }
    var behaviour = ["received", "opened", "converted"].filter(function (name) { return json && json[name]; })[0];
    if (behaviour) {
      var b = json[behaviour];
      return { kind: behaviour, campaign: b.campaign || "", event: b.event || "", minimumValue: b.minimumValue === undefined ? "" : String(b.minimumValue),
               withinDays: b.withinDays === undefined ? "" : String(b.withinDays) };
    }
    throw new Error("not drawable");
  }

  function toJSON(node) {
    if (node.group === "not") { return { not: node.children.length ? toJSON(node.children[0]) : {} }; }
    if (node.group) {
      var parts = {};
      parts[node.group] = node.children.map(toJSON);
      return parts;
    }
    switch (node.kind) {
    case "attribute":
      var condition = { attribute: node.key };
      condition[node.op] = node.op === "in" ? list(node.value).map(typed) : node.op === "exists" ? node.value !== "false" : typed(node.value);
      return condition;
    case "language": return { language: node.tag, match: node.match };
    case "timeZone": return { timeZone: list(node.zones) };
    case "environment": return { environment: node.environment };
    case "registered":
      var test = {};
      test[node.test] = node.test === "withinDays" ? days(node.value) : node.value;
      return { registered: test };
    case "userID":
      return { userID: node.test === "in" ? { in: list(node.value) } : { exists: node.test === "exists" } };
    case "event":
      var event = { name: node.name };
      if (node.withinDays !== "") { event.withinDays = days(node.withinDays); }
      return { event: event };
    default:
      var fields = {};
      if (node.campaign) { fields.campaign = node.campaign; }
      if (node.kind === "converted" && node.event) { fields.event = node.event; }
      if (node.kind === "converted" && node.minimumValue !== "") { fields.minimumValue = Number(node.minimumValue); }
      if (node.withinDays !== "") { fields.withinDays = days(node.withinDays); }
      var behaviour = {};
      behaviour[node.kind] = fields;
      return behaviour;
    }
  }

  function fresh(kind) {
    switch (kind) {
    case "attribute": return { kind: kind, key: "", op: "eq", value: "" };
    case "language": return { kind: kind, tag: "", match: "any" };
    case "timeZone": return { kind: kind, zones: "" };
    case "environment": return { kind: kind, environment: "production" };
    case "registered": return { kind: kind, test: "withinDays", value: "30" };
    case "userID": return { kind: kind, test: "exists", value: "" };
    case "event": return { kind: kind, name: "", withinDays: "30" };
    default: return { kind: kind, campaign: "", event: "", minimumValue: "", withinDays: "30" };
    }
  }

  var tree = { group: "all", children: [] };
  var drawable = true;
  if (textarea.value.trim() !== "") {
    try {
      var parsed = fromJSON(JSON.parse(textarea.value));
      tree = parsed.group ? parsed : { group: "all", children: [parsed] };
    } catch (error) { drawable = false; }
  }

  function changed() {
    if (tree.children.length) { textarea.value = JSON.stringify(tree.group === "all" && tree.children.length === 1 ? toJSON(tree.children[0]) : toJSON(tree)); }
    count();
  }

  // The inputs of one condition, each writing back into `node`.
  function fieldsOf(node) {
    var parts = [];
    function bind(control, key) {
      control.addEventListener("input", function () { node[key] = control.value; changed(); });
      control.addEventListener("change", function () { node[key] = control.value; changed(); });
      parts.push(control);
    }
    switch (node.kind) {
    case "attribute":
      bind(input(node.key, "cartValue", "Attribute name"), "key");
      bind(select(operators.map(function (op) { return [op, op]; }), node.op, "Operator"), "op");
      bind(input(node.value, "50, a date, or a, b for in", "Value"), "value");
      break;
    case "language":
      bind(input(node.tag, "pt or pt-BR", "Language"), "tag");
      bind(select([["any", "any of the device's languages"], ["first", "its first language"]], node.match, "Which language"), "match");
      break;
    case "timeZone": bind(input(node.zones, "Europe/Paris, America/New_York", "Time zones"), "zones"); break;
    case "environment": bind(select([["production", "production"], ["sandbox", "sandbox"]], node.environment, "Environment"), "environment"); break;
    case "registered":
      bind(select([["withinDays", "within the last N days"], ["after", "after"], ["before", "before"]], node.test, "When"), "test");
      bind(input(node.value, "30 or 2026-01-01T00:00:00Z", "Days or date"), "value");
      break;
    case "userID":
      bind(select([["exists", "has a user ID"], ["missing", "has none"], ["in", "is one of"]], node.test, "User ID"), "test");
      bind(input(node.value, "user-1, user-2", "User IDs"), "value");
      break;
    case "event":
      bind(input(node.name, "cart_abandoned", "Event name"), "name");
      bind(input(node.withinDays, "days (empty: ever)", "Within days"), "withinDays");
      break;
    default:
      if (node.kind === "converted") {
        parts.push(el("span", { "class": "segment-label" }, ["event"]));
        bind(input(node.event, "any", "Event"), "event");
        parts.push(el("span", { "class": "segment-label" }, ["worth at least"]));
        bind(input(node.minimumValue, "any value", "Minimum value"), "minimumValue");
      } else {
        parts.push(el("span", { "class": "segment-label" }, ["campaign"]));
        bind(input(node.campaign, "any (or its ID)", "Campaign"), "campaign");
      }
      parts.push(el("span", { "class": "segment-label" }, ["within days"]));
      bind(input(node.withinDays, "ever", "Within days"), "withinDays");
    }
    return parts;
  }

  function draw(node, parent, depth) {
    var box = el("div", { "class": node.group ? "segment-group" : "segment-condition" });
    var remove = el("button", { type: "button", "class": "link", "aria-label": "Remove" }, ["remove"]);
    if (node.group) {
      var mode = select([["all", "All of"], ["any", "Any of"], ["not", "None of (not)"]], node.group, "Group");
      mode.addEventListener("change", function () {
        node.group = mode.value;
        if (node.group === "not" && node.children.length > 1) { node.children = [{ group: "all", children: node.children }]; }
        redraw();
      });
      box.appendChild(el("div", { "class": "segment-head" }, [mode].concat(parent ? [remove] : [])));
      node.children.forEach(function (child) { draw(child, node, depth + 1); box.appendChild(child.box); });
      if (!(node.group === "not" && node.children.length >= 1)) {
        var kind = select(kinds, "attribute", "New condition");
        var add = el("button", { type: "button", "class": "secondary" }, ["Add condition"]);
        add.addEventListener("click", function () { node.children.push(fresh(kind.value)); redraw(); });
        var addGroup = el("button", { type: "button", "class": "secondary" }, ["Add group"]);
        addGroup.addEventListener("click", function () { node.children.push({ group: "any", children: [] }); redraw(); });
        box.appendChild(el("div", { "class": "segment-add" }, depth < 5 ? [kind, add, addGroup] : [kind, add]));
      }
    } else {
      var label = kinds.filter(function (k) { return k[0] === node.kind; })[0][1];
      box.appendChild(el("span", { "class": "segment-kind" }, [label]));
      fieldsOf(node).forEach(function (part) { box.appendChild(part); });
      box.appendChild(remove);
    }
    remove.addEventListener("click", function () {
      parent.children.splice(parent.children.indexOf(node), 1);
      redraw();
    });
    node.box = box;
  }

  function redraw() {
    root.innerHTML = "";
    draw(tree, null, 0);
    root.appendChild(tree.box);
    changed();
  }

  var timer = null;
  function count() {
    clearTimeout(timer);
    timer = setTimeout(function () {
      if (textarea.value.trim() === "") { return; }
      var body = new URLSearchParams({ app: root.getAttribute("data-app"), segment: textarea.value });
      fetch(root.getAttribute("data-evaluate-url"), {
        method: "POST", credentials: "same-origin", body: body,
        headers: { "X-CSRF-Token": token, "Content-Type": "application/x-www-form-urlencoded" }
      })
        .then(function (response) { return response.json(); })
        .then(function (answer) {
          if (answer.problem) {
            countOutput.className = "notice error";
            countOutput.textContent = answer.problem;
            sampleOutput.innerHTML = "";
          } else {
            countOutput.className = "notice";
            countOutput.innerHTML = "<b id=\"segment-count-value\">" + answer.text + "</b> devices match now.";
            sampleOutput.innerHTML = answer.sample;
          }
        })
        .catch(function () { countOutput.textContent = "Count unavailable right now."; });
    }, 300);
  }

  textarea.addEventListener("input", count);
  if (drawable) { redraw(); } else {
    root.appendChild(el("p", { "class": "hint" }, ["This segment has conditions the builder cannot draw; edit its JSON below."]));
    count();
  }
})();
