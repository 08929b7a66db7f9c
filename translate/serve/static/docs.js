// The API reference, drawn from the server's own OpenAPI schema: no CDN, so it works offline.
"use strict";

const el = (tag, text, cls) => {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
};

function refName(ref) { return ref.split("/").pop(); }

function typeOf(schema, schemas) {
  if (!schema) return "";
  if (schema.$ref) return refName(schema.$ref);
  if (schema.anyOf) return schema.anyOf.map((s) => typeOf(s, schemas)).join(" | ");
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.type === "array") {
    if (schema.prefixItems) return `[${schema.prefixItems.map((s) => typeOf(s, schemas)).join(", ")}]`;
    return `list of ${typeOf(schema.items, schemas)}`;
  }
  return schema.type || "object";
}

function limits(schema) {
  const parts = [];
  for (const [key, label] of [["minimum", "≥"], ["maximum", "≤"], ["exclusiveMinimum", ">"], ["maxLength", "length ≤"],
                              ["maxItems", "items ≤"]]) {
    if (schema[key] !== undefined) parts.push(`${label} ${schema[key]}`);
  }
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.join(", ");
}

function schemaTable(name, schemas) {
  const schema = schemas[name];
  const section = el("section");
  section.id = `schema-${name}`;
  section.append(el("h3", name));
  if (schema.description) section.append(el("p", schema.description, "hint"));
  const table = el("table", undefined, "fields");
  const head = table.createTHead().insertRow();
  for (const h of ["field", "type", "limits", "what"]) head.append(el("th", h));
  const body = table.createTBody();
  const required = new Set(schema.required || []);
  for (const [field, prop] of Object.entries(schema.properties || {})) {
    const row = body.insertRow();
    row.append(el("td", field + (required.has(field) ? " *" : "")), el("td", typeOf(prop, schemas)),
               el("td", limits(prop)), el("td", prop.description || ""));
  }
  section.append(table);
  return section;
}

async function draw() {
  const main = document.getElementById("reference");
  try {
    const spec = await (await fetch("/openapi.json")).json();
    const schemas = (spec.components || {}).schemas || {};
    main.replaceChildren(el("p", spec.info.description || ""));
    main.append(el("h2", "Endpoints"));
    for (const [path, methods] of Object.entries(spec.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const section = el("section", undefined, "endpoint");
        section.append(el("h3", `${method.toUpperCase()} ${path}`));
        if (op.description || op.summary) section.append(el("p", op.description || op.summary));
        const content = (op.requestBody && op.requestBody.content) || {};
        const body = content["application/json"];
        if (body) section.append(el("p", `Body: ${typeOf(body.schema, schemas)} (Content-Type: ${Object.keys(content).join(" or ")})`));
        const codes = Object.entries(op.responses || {}).map(([code, r]) => `${code} ${r.description || ""}`.trim());
        section.append(el("p", `Responses: ${codes.join("; ")}`, "hint"));
        main.append(section);
      }
    }
    main.append(el("h2", "Schemas"), el("p", "* required", "hint"));
    for (const name of Object.keys(schemas)) main.append(schemaTable(name, schemas));
  } catch (err) {
    main.replaceChildren(el("p", `Could not read /openapi.json: ${err}`));
  }
}

draw();
