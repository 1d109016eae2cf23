// The declared types against the server's OpenAPI document: every
// interface has exactly the fields of its schema (and whether each is
// required), with matching types; the README example type-checks.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import test from "node:test";
import ts from "typescript";
import { KNOWN_GAPS, flatten, named, openapi, resolve, routeSchema } from "./openapi.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const typesFile = here("../src/types.ts");

// interface → its schema in the OpenAPI document
const schemas = {
  Alternative: () => named("Decision").properties.alternatives.items,
  Decision: () => named("Decision"),
  Correction: () => named("Correction"),
  Filter: () => named("Filter"),
  MemoryRecord: () => named("Record"),
  WrittenRecord: () => named("WrittenRecord"),
  NewRecord: () => named("NewRecord"),
  RememberRequest: () => named("RememberRequest"),
  BatchRequest: () => named("BatchRequest"),
  BatchResponse: () => named("BatchResponse"),
  ListResponse: () => named("ListResponse"),
  RecordPatch: () => named("RecordPatch"),
  Revision: () => named("Revision"),
  RecallRequest: () => named("RecallRequest"),
  Triage: () => named("Triage"),
  RecallHit: () => named("RecallHit"),
  RecallResult: () => named("RecallResult"),
  DigestRequest: () => named("DigestRequest"),
  DigestEntry: () => named("DigestEntry"),
  Digest: () => named("Digest"),
  ImportResult: () => named("ImportResult"),
  ErrorBody: () => named("Error"),
  CorrectionCounts: () => named("CorrectionCounts"),
  CorrectionPeriod: () => flatten(named("CorrectionReport").properties.periods.items),
  CorrectionReport: () => named("CorrectionReport"),
  ExpireRequest: () => named("ExpireRequest"),
  ExpireResult: () => named("ExpireResult"),
  ConsolidateRequest: () => named("ConsolidateRequest"),
  ConsolidatePair: () => named("ConsolidateResult").properties.pairs.items,
  ConsolidateResult: () => named("ConsolidateResult"),
  PurgeRequest: () => routeSchema("POST", "/v1/purge"),
  PurgeResult: () => routeSchema("POST", "/v1/purge", 200),
  HandoffRequest: () => named("HandoffRequest"),
  HandoffPattern: () => named("Handoff").properties.patterns.items,
  HandoffAttention: () => named("Handoff").properties.attention.items,
  HandoffLink: () => named("Handoff").properties.links.items,
  Handoff: () => named("Handoff"),
  Weights: () => named("Weights"),
  TuneRequest: () => routeSchema("POST", "/v1/tune"),
  TuneResult: () => named("TuneResult"),
  TuningVersion: () => named("Tuning").properties.versions.items,
  TuningEvent: () => named("Tuning").properties.events.items,
  Tuning: () => named("Tuning"),
  RollbackRequest: () => routeSchema("POST", "/v1/tune/rollback"),
  EpisodeRequest: () => routeSchema("POST", "/v1/episodes"),
  EpisodeResult: () => routeSchema("POST", "/v1/episodes", 200),
  ThreadInfo: () => routeSchema("GET", "/v1/threads", 200).items,
  Principle: () => named("Principle"),
  PrincipleDecision: () => named("PrincipleDecision"),
  Status: () => named("Status"),
};
// interfaces of query parameters → the route whose parameters they are
const queries = { ListQuery: ["get", "/v1/records"], CorrectionsQuery: ["get", "/v1/corrections"] };
// interfaces the document does not describe as JSON objects
const undocumented = new Set(["Why", "CorrectionTriple"]);
// TypeScript names of the document's named schemas
const tsName = { Record: "MemoryRecord", Error: "ErrorBody" };

const program = ts.createProgram([typesFile], { strict: true, noEmit: true, lib: ["lib.es2020.d.ts"], types: [] });
const checker = program.getTypeChecker();
const source = program.getSourceFile(typesFile);
const decls = new Map();
ts.forEachChild(source, (node) => {
  if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) decls.set(node.name.text, node);
});

function members(name) {
  const node = decls.get(name);
  const type = checker.getTypeAtLocation(node.name);
  const out = new Map();
  for (const sym of checker.getPropertiesOfType(type)) {
    const t = checker.getTypeOfSymbolAtLocation(sym, node);
    const text = checker.typeToString(checker.getNonNullableType(t), undefined, ts.TypeFormatFlags.NoTruncation);
    out.set(sym.name, { optional: (sym.flags & ts.SymbolFlags.Optional) !== 0, type: text });
  }
  return out;
}

function literals(name) {
  const type = checker.getTypeAtLocation(decls.get(name).name);
  return (type.isUnion() ? type.types : [type]).map((t) => t.value).sort();
}

// Whether a declared TypeScript type fits a schema.
function fits(tsType, schema) {
  const s = schema.$ref ? { ref: schema.$ref.split("/").pop() } : schema;
  if (s.ref) {
    const ref = resolve(schema.$ref);
    if (ref.enum) return tsType === s.ref || ref.enum.every((v) => tsType.includes(JSON.stringify(v)));
    return tsType.replace(/ \| null$/, "") === (tsName[s.ref] ?? s.ref);
  }
  if (s.allOf) return true;
  const alias = decls.get(tsType);
  if (s.enum) {
    if (alias && ts.isTypeAliasDeclaration(alias)) return literals(tsType).join() === [...s.enum].sort().join();
    return s.enum.every((v) => tsType.includes(JSON.stringify(v)));
  }
  // An inline object is declared as an interface of its own, compared field
  // by field in its own right (it is in schemas).
  if (s.type === "object" && alias && ts.isInterfaceDeclaration(alias)) return tsType in schemas;
  switch (s.type) {
    case "string":
      return /\bstring\b/.test(tsType) || tsType === "DateTime";
    case "integer":
    case "number":
      return /\bnumber\b/.test(tsType);
    case "boolean":
      return /\bboolean\b/.test(tsType);
    case "array":
      return tsType.endsWith("[]") && (!s.items || fits(tsType.slice(0, -2).replace(/^\((.*)\)$/, "$1"), s.items));
    case "object":
      return tsType.startsWith("{");
    default:
      return true;
  }
}

test("every interface matches its OpenAPI schema, field by field", () => {
  const problems = [];
  for (const [name, get] of Object.entries(schemas)) {
    assert.ok(decls.has(name), `src/types.ts declares ${name}`);
    const schema = flatten(get());
    const props = schema.properties ?? {};
    const required = new Set(schema.required ?? []);
    const mine = members(name);
    const schemaName = Object.entries(tsName).find(([, v]) => v === name)?.[0] ?? name;
    for (const [field, sch] of Object.entries(props)) {
      const m = mine.get(field);
      if (!m) {
        problems.push(`${name}.${field}: in the OpenAPI document, not in the type`);
        continue;
      }
      if (required.has(field) === m.optional) {
        problems.push(`${name}.${field}: ${required.has(field) ? "required" : "optional"} in the document, not in the type`);
      }
      if (!fits(m.type, sch)) problems.push(`${name}.${field}: type ${m.type} does not fit ${JSON.stringify(sch)}`);
    }
    for (const field of mine.keys()) {
      if (!(field in props) && !KNOWN_GAPS.has(`${schemaName}.${field}`)) {
        problems.push(`${name}.${field}: in the type, not in the OpenAPI document`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test("every named schema of the document has a type", () => {
  const covered = new Set(Object.keys(schemas).map((n) => Object.entries(tsName).find(([, v]) => v === n)?.[0] ?? n));
  const missing = Object.keys(openapi.components.schemas).filter((n) => !covered.has(n) && !decls.has(n));
  assert.deepEqual(missing, []);
});

test("enums match: Layer, Kind, Outcome, error codes", () => {
  assert.deepEqual(literals("Layer"), [...openapi.components.schemas.Layer.enum].sort());
  assert.deepEqual(literals("Kind"), [...openapi.components.schemas.Kind.enum].sort());
  assert.deepEqual(literals("Outcome"), [...openapi.components.schemas.Correction.properties.outcome.enum].sort());
  // The client knows every code the document lists (and the two the
  // server also sends, unsupported_media_type and unavailable).
  const codes = literals("ErrorCode");
  for (const c of openapi.components.schemas.Error.properties.error.properties.code.enum) assert.ok(codes.includes(c), c);
});

test("query interfaces name exactly the routes' query parameters", () => {
  for (const [name, [method, path]] of Object.entries(queries)) {
    const params = openapi.paths[path][method].parameters.filter((p) => p.in === "query").map((p) => p.name).sort();
    assert.deepEqual([...members(name).keys()].sort(), params, name);
  }
});

test("every interface is compared or listed as undocumented", () => {
  const interfaces = [...decls.entries()].filter(([, n]) => ts.isInterfaceDeclaration(n)).map(([k]) => k);
  const left = interfaces.filter((n) => !(n in schemas) && !(n in queries) && !undocumented.has(n));
  assert.deepEqual(left, []);
});

test("the README example and the public API type-check", () => {
  const readme = readFileSync(here("../README.md"), "utf8");
  const example =
    "declare const process: { env: { [name: string]: string | undefined } };\n" +
    readme.match(/```ts\n([\s\S]*?)```/)[1].replace(/from "mnemo-client"/g, 'from "../src/index.js"');
  const file = here("./readme-example.ts");
  const host = ts.createCompilerHost({});
  const options = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    types: [],
  };
  const readFile = host.readFile;
  host.readFile = (f) => (f === file ? example : readFile.call(host, f));
  host.fileExists = ((exists) => (f) => f === file || exists.call(host, f))(host.fileExists);
  const getSourceFile = host.getSourceFile;
  host.getSourceFile = (f, lang, ...rest) =>
    f === file ? ts.createSourceFile(f, example, lang) : getSourceFile.call(host, f, lang, ...rest);
  const prog = ts.createProgram([file], options, host);
  const diags = ts.getPreEmitDiagnostics(prog).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  assert.deepEqual(diags, []);
});
