// TS-VIS's model graphs (/api/graph): a tree of name scopes whose leaves are ops (or layers, or modules). The API
// gives each edge at every level of the tree (an edge between two ops also joins each scope of one to each scope of
// the other, below the scopes they share), so the edges among the nodes shown are the edges between shown nodes.

import { tsvisCategory, tsvisData } from "./api";

export type GraphKind = "c_graph" | "s_graph";

export interface RawTarget {
  id: string;
  info: string;
  /** "true" for a control edge (computation graphs only). */
  control?: string;
}

export interface RawNode {
  label: string;
  uid: string;
  op: string;
  attrs: Record<string, unknown>;
  targets: RawTarget[];
  sub_net: RawNode[];
}

export interface Link {
  node: GraphNode;
  info: string;
  control: boolean;
}

export interface GraphNode {
  uid: string;
  label: string;
  op: string;
  attrs: Record<string, unknown>;
  parent: GraphNode | null;
  children: GraphNode[];
  targets: RawTarget[];
  /** Leaves in its subtree; 1 for a leaf. */
  leaves: number;
  /** Op-to-op edges (leaves only). */
  inputs: Link[];
  outputs: Link[];
}

export interface Edge {
  source: string;
  target: string;
  info: string;
  control: boolean;
}

/** The runs that have graphs, by name, each with the kinds it has (from /api/getCategory). */
export async function graphRuns(): Promise<Map<string, GraphKind[]>> {
  const category = await tsvisCategory<Record<string, { graph?: GraphKind[] }>>();
  const found = new Map<string, GraphKind[]>();
  for (const [run, components] of Object.entries(category).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (components.graph?.length) found.set(run, components.graph);
  }
  return found;
}

export interface Graphs {
  /** One top-level node list per model: a computation graph has one, a structure graph one per model it holds. */
  models: RawNode[][];
  /** Operator categories: op names (lower case) by category. */
  categories: { op: string; list: string[] }[];
}

export async function fetchGraph(run: string, kind: GraphKind): Promise<Graphs> {
  const body = JSON.parse(await tsvisData<string>("graph", { run, tag: kind })) as {
    net: RawNode[] | RawNode[][];
    operator: { op: string; list: string[] }[];
  };
  const models = kind === "c_graph" ? [body.net as RawNode[]] : (body.net as RawNode[][]);
  return { models, categories: body.operator };
}

export class GraphModel {
  readonly roots: GraphNode[];
  readonly nodes = new Map<string, GraphNode>();
  readonly leafCount: number;
  private readonly category = new Map<string, number>();

  constructor(net: RawNode[], categories: Graphs["categories"]) {
    this.roots = net.map((raw) => this.add(raw, null));
    categories.forEach((category, index) => category.list.forEach((op) => this.category.set(op, index)));
    let leaves = 0;
    for (const node of this.nodes.values()) {
      if (node.children.length) continue;
      leaves++;
      for (const target of node.targets) {
        const other = this.nodes.get(target.id);
        if (!other || other.children.length) continue;
        const control = target.control === "true";
        node.outputs.push({ node: other, info: target.info, control });
        other.inputs.push({ node, info: target.info, control });
      }
    }
    this.leafCount = leaves;
  }

  private add(raw: RawNode, parent: GraphNode | null): GraphNode {
    const node: GraphNode = {
      uid: raw.uid,
      label: raw.label,
      op: raw.op,
      attrs: raw.attrs,
      parent,
      children: [],
      targets: raw.targets,
      leaves: 0,
      inputs: [],
      outputs: [],
    };
    this.nodes.set(node.uid, node);
    node.children = raw.sub_net.map((child) => this.add(child, node));
    node.leaves = node.children.length ? node.children.reduce((sum, child) => sum + child.leaves, 0) : 1;
    return node;
  }

  /** What is drawn when the `expanded` groups are open: boxes (leaves and closed groups) and open groups. */
  visible(expanded: ReadonlySet<string>): { boxes: GraphNode[]; open: GraphNode[] } {
    const boxes: GraphNode[] = [];
    const open: GraphNode[] = [];
    const walk = (nodes: GraphNode[]): void => {
      for (const node of nodes) {
        if (node.children.length && expanded.has(node.uid)) {
          open.push(node);
          walk(node.children);
        } else boxes.push(node);
      }
    };
    walk(this.roots);
    return { boxes, open };
  }

  /** The edges between the boxes. */
  edges(boxes: GraphNode[]): Edge[] {
    const shown = new Set(boxes.map((node) => node.uid));
    return boxes.flatMap((node) =>
      node.targets
        .filter((target) => shown.has(target.id) && target.id !== node.uid)
        .map((target) => ({
          source: node.uid,
          target: target.id,
          info: target.info,
          control: target.control === "true",
        })),
    );
  }

  /** Nodes whose full name holds `text` (any case), in the tree's order. */
  search(text: string): GraphNode[] {
    const needle = text.trim().toLowerCase();
    if (!needle) return [];
    return [...this.nodes.values()].filter((node) => node.uid.toLowerCase().includes(needle));
  }

  /** The node's enclosing groups, outermost first. */
  ancestors(node: GraphNode): GraphNode[] {
    const found: GraphNode[] = [];
    for (let parent = node.parent; parent; parent = parent.parent) found.unshift(parent);
    return found;
  }

  /** The index of the op's TS-VIS category ("aten::relu" is "relu"), or -1. */
  categoryOf(node: GraphNode): number {
    return this.category.get(node.op.toLowerCase().replace(/^.*::/, "")) ?? -1;
  }
}
