// Types of the fetch client, from the server's OpenAPI schema (schema.d.ts is generated: npm run generate).
import type { components, paths } from "./schema.js";

export type { components, paths };
type Schemas = components["schemas"];
type Body<P extends keyof paths, M extends "post" | "put" | "patch"> = paths[P][M] extends {
  requestBody?: { content: { "application/json": infer B } };
}
  ? B
  : never;
type Query<P extends keyof paths> = paths[P]["get"] extends { parameters: { query?: infer Q } } ? Q : never;

export type MemoryItem = Schemas["MemoryItem"];
export type Message = Schemas["Message"];
export type Person = Schemas["Person"];
export type RecallResult = Schemas["RecallResult"];
export type RecallHit = Schemas["RecallHit"];
export type FullContext = Schemas["FullContext"];
export type ErasureReport = Schemas["ErasureReport"];
export type MessagesResponse = Schemas["MessagesResponse"];
export type Page = Schemas["Page"];
export type Job = Schemas["Job"];
export type Entity = Schemas["Entity"];
export type RunReport = Schemas["RunReport"];
export type Found = Schemas["Found"];
export type EntityMerge = Schemas["EntityMerge"];
export type Link = Schemas["Link"];
export type CoreBlock = Schemas["CoreBlock"];
export type Health = Schemas["Health"];
export type QueryResponse = Schemas["QueryResponse"];

export declare class HuiyiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details?: unknown;
  constructor(status: number, code: string, message: string, details?: unknown);
}

/** one page of a listing answered as a bare list; nextCursor (the Huiyi-Next-Cursor header) is null on the last */
export interface CursorPage<T> {
  items: T[];
  nextCursor: string | null;
}

export interface HuiyiClientOptions {
  baseUrl?: string;
  apiKey?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export declare class HuiyiClient {
  constructor(options?: HuiyiClientOptions);
  readonly baseUrl: string;
  request(method: string, path: string, request?: { body?: unknown; query?: Record<string, unknown> }): Promise<unknown>;
  exchange(
    method: string,
    path: string,
    request?: { body?: unknown; query?: Record<string, unknown> },
  ): Promise<{ body: unknown; headers: Headers }>;
  health(): Promise<Health>;
  add(body: Body<"/v1/messages", "post">): Promise<MessagesResponse>;
  recall(body: Body<"/v1/recall", "post">): Promise<RecallResult>;
  context(body: Body<"/v1/context", "post">): Promise<FullContext>;
  remember(body: Body<"/v1/memories", "post">): Promise<MemoryItem>;
  get(memoryId: string, agent: string): Promise<MemoryItem>;
  delete(memoryId: string, agent: string): Promise<void>;
  memories(query: Query<"/v1/memories">): Promise<Page>;
  /** every memory of one scope, newest first, read perPage (default 100) at a time by cursor */
  iterMemories(query: Omit<Query<"/v1/memories">, "limit" | "offset" | "cursor">, perPage?: number): AsyncGenerator<MemoryItem>;
  /** one page of a scope's memories matching a search (words in `q`, kind, since/until, valid, min_strength, source) */
  search(query: Query<"/v1/search">): Promise<Found>;
  /** every memory a search matches, newest first, read perPage (default 50) at a time by cursor */
  iterSearch(query: Omit<Query<"/v1/search">, "limit" | "offset" | "cursor">, perPage?: number): AsyncGenerator<MemoryItem>;
  jobs(query: Query<"/v1/jobs">): Promise<Job[]>;
  /** one page of jobs, oldest first; nextCursor is null on the last page */
  jobsPage(query: Query<"/v1/jobs">): Promise<CursorPage<Job>>;
  /** every job of an agent, oldest first, read perPage (default 100) at a time by cursor */
  iterJobs(query: Omit<Query<"/v1/jobs">, "limit" | "cursor">, perPage?: number): AsyncGenerator<Job>;
  /** the last reports of consolidations and summaries, newest first (`scope`: official, person:<id>, space:<id>) */
  reports(query: Query<"/v1/reports">): Promise<RunReport[]>;
  /** one page of the kept reports, newest first; nextCursor is null on the last page */
  reportsPage(query: Query<"/v1/reports">): Promise<CursorPage<RunReport>>;
  /** every kept report, newest first, read perPage (default 20) at a time by cursor */
  iterReports(query: Omit<Query<"/v1/reports">, "limit" | "cursor">, perPage?: number): AsyncGenerator<RunReport>;
  /** every entity of one scope, in the order written */
  entities(query: Omit<Query<"/v1/entities">, "limit" | "cursor">): Promise<Entity[]>;
  /** one page of a scope's entities (all of them without limit and cursor); nextCursor is null on the last */
  entitiesPage(query: Query<"/v1/entities">): Promise<CursorPage<Entity>>;
  /** every entity of one scope, in the order written, read perPage (default 100) at a time by cursor */
  iterEntities(query: Omit<Query<"/v1/entities">, "limit" | "cursor">, perPage?: number): AsyncGenerator<Entity>;
  messages(ids: string[], agent: string): Promise<Message[]>;
  setPerson(personId: string, body: Body<"/v1/persons/{person_id}", "put">): Promise<Person>;
  getPerson(personId: string, agent: string): Promise<Person | null>;
  feedback(body: Body<"/v1/feedback", "post">): Promise<MemoryItem>;
  link(body: Body<"/v1/links", "post">): Promise<Link>;
  flush(body: Body<"/v1/flush", "post">): Promise<Job[]>;
  /** correct a memory: text, time, place, keywords, insight, importance; a fact's valid_to */
  update(memoryId: string, body: Body<"/v1/memories/{memory_id}", "patch">): Promise<MemoryItem>;
  getEntity(entityId: string, agent: string): Promise<Entity>;
  createEntity(body: Body<"/v1/entities", "post">): Promise<Entity>;
  /** correct an entity's name, type or aliases (aliases replaces the list) */
  updateEntity(entityId: string, body: Body<"/v1/entities/{entity_id}", "patch">): Promise<Entity>;
  /** how many entities went: the one named and those merged into it */
  deleteEntity(entityId: string, agent: string): Promise<number>;
  merges(agent: string): Promise<EntityMerge[]>;
  undoMerge(mergeId: string, agent: string): Promise<EntityMerge>;
  /** the consolidation's report as JSON (dry_run: what would change) */
  consolidate(body: Body<"/v1/consolidate", "post">): Promise<Record<string, unknown>>;
  /** queue a failed job again (attempts back to 0); not_found unless it failed */
  retryJob(jobId: string, agent: string): Promise<Job>;
  /** purge "wait": answer once the server's files hold none of it (``purged``); default "behind" */
  forgetPerson(personId: string, agent: string, purge?: "behind" | "wait"): Promise<ErasureReport>;
  forgetMessages(body: Body<"/v1/messages/forget", "post">): Promise<ErasureReport>;
  coreBlocksFor(query: Query<"/v1/core_blocks">): Promise<CoreBlock[]>;
  workingMemory(query: Query<"/v1/working_memory">): Promise<Message[]>;
  overview(query: Query<"/v1/overview">): Promise<MemoryItem[]>;
  /** seed 000's /query, kept for compatibility */
  query(body: Body<"/query", "post">): Promise<QueryResponse>;
  /** seed 000's /query_simple, kept for compatibility */
  querySimple(body: Body<"/query_simple", "post">): Promise<string[]>;
}
