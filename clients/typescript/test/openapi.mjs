// The server's OpenAPI document and a validator of JSON values against its
// schemas (the subset the document uses: type, properties, required,
// additionalProperties, items, enum, allOf, $ref), strict about unknown
// fields so that answers the document does not describe are found.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const openapiPath = fileURLToPath(new URL("../../../server/openapi.json", import.meta.url));
export const openapi = JSON.parse(readFileSync(openapiPath, "utf8"));

/**
 * Fields the server sends or takes that the OpenAPI document does not
 * describe yet, as "Schema.field". Tests accept them; anything else
 * undocumented fails.
 */
export const KNOWN_GAPS = new Set([]);

/** Resolves a JSON pointer ("#/components/schemas/Record") in the document. */
export function resolve(ref) {
  let node = openapi;
  for (const part of ref.replace(/^#\//, "").split("/")) {
    node = node[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    if (node === undefined) throw new Error(`openapi: no ${ref}`);
  }
  return node;
}

/** The schema of a route's JSON request body or answer. */
export function routeSchema(method, path, status) {
  const op = openapi.paths[path][method.toLowerCase()];
  const content = status === undefined ? op.requestBody.content : op.responses[String(status)].content;
  return content["application/json"].schema;
}

/** The schema named name in components, with allOf merged. */
export function named(name) {
  return flatten(resolve(`#/components/schemas/${name}`));
}

/** Merges allOf parts into one object schema. */
export function flatten(schema) {
  if (schema.$ref) return flatten(resolve(schema.$ref));
  if (!schema.allOf) return schema;
  const out = { type: "object", properties: {}, required: [] };
  for (const part of schema.allOf) {
    const p = flatten(part);
    Object.assign(out.properties, p.properties ?? {});
    out.required.push(...(p.required ?? []));
  }
  return out;
}

function typeOk(type, v) {
  switch (type) {
    case "string":
      return typeof v === "string";
    case "integer":
      return Number.isInteger(v);
    case "number":
      return typeof v === "number";
    case "boolean":
      return typeof v === "boolean";
    case "array":
      return Array.isArray(v);
    case "object":
      return v !== null && typeof v === "object" && !Array.isArray(v);
    case "null":
      return v === null;
    default:
      return true;
  }
}

/**
 * Validates value against schema; returns the violations as strings.
 * Unknown fields are violations unless listed in KNOWN_GAPS.
 */
export function validate(value, schema, where = "$", name = "") {
  const out = [];
  if (schema.$ref) {
    return validate(value, resolve(schema.$ref), where, schema.$ref.split("/").pop());
  }
  if (schema.allOf) {
    return validate(value, flatten(schema), where, name);
  }
  if (value === null && schema.type !== "null") {
    // A Go nil slice or pointer: the document leaves null implicit for
    // optional fields, so only a required one is a violation (checked by
    // the parent).
    return out;
  }
  if (schema.type && !typeOk(schema.type, value)) {
    out.push(`${where}: want ${schema.type}, got ${JSON.stringify(value)}`);
    return out;
  }
  if (schema.enum && !schema.enum.includes(value)) {
    out.push(`${where}: ${JSON.stringify(value)} is not one of ${schema.enum.join(", ")}`);
  }
  if (schema.type === "array" && schema.items) {
    value.forEach((x, i) => out.push(...validate(x, schema.items, `${where}[${i}]`, "")));
  }
  if (schema.type === "object" || schema.properties) {
    const props = schema.properties ?? {};
    for (const r of schema.required ?? []) {
      if (value[r] === undefined || value[r] === null) out.push(`${where}: required ${r} is missing`);
    }
    for (const [k, v] of Object.entries(value)) {
      if (props[k]) {
        out.push(...validate(v, props[k], `${where}.${k}`, ""));
      } else if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
        out.push(...validate(v, schema.additionalProperties, `${where}.${k}`, ""));
      } else if (!KNOWN_GAPS.has(`${name}.${k}`)) {
        out.push(`${where}: ${k} is not in the OpenAPI schema${name ? " " + name : ""}`);
      }
    }
  }
  return out;
}
