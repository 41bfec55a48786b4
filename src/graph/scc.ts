/**
 * Strongly connected components of a CSR graph: Tarjan's algorithm made iterative (explicit
 * stacks in typed arrays, no recursion), O(n + m).
 */

export interface SccResult {
  /** Component id of each node (0 .. count-1). */
  comp: Uint32Array;
  count: number;
  /** Size of each component. */
  sizes: Uint32Array;
  /** Id of the largest component (ties: the lowest id), -1 for an empty graph. */
  largest: number;
}

/** Components of the graph with arcs `adj[firstOut[v] .. firstOut[v+1]-1]` out of each node v. */
export function stronglyConnectedComponents(numNodes: number, firstOut: ArrayLike<number>, adj: ArrayLike<number>): SccResult {
  const n = numNodes;
  const UNSEEN = 0xffffffff;
  const index = new Uint32Array(n).fill(UNSEEN);
  const low = new Uint32Array(n);
  const comp = new Uint32Array(n).fill(UNSEEN);
  const onStack = new Uint8Array(n);
  const stack = new Uint32Array(n); // Tarjan's node stack
  let sp = 0;
  const callNode = new Uint32Array(n); // DFS call stack: node and next arc to look at
  const callArc = new Uint32Array(n);
  let cp = 0;
  let next = 0;
  let count = 0;
  const sizesList: number[] = [];

  for (let root = 0; root < n; root++) {
    if (index[root] !== UNSEEN) continue;
    index[root] = low[root] = next++;
    stack[sp++] = root;
    onStack[root] = 1;
    callNode[cp] = root;
    callArc[cp] = firstOut[root];
    cp++;
    while (cp > 0) {
      const v = callNode[cp - 1];
      const end = firstOut[v + 1];
      let a = callArc[cp - 1];
      let descended = false;
      while (a < end) {
        const w = adj[a++];
        if (index[w] === UNSEEN) {
          callArc[cp - 1] = a;
          index[w] = low[w] = next++;
          stack[sp++] = w;
          onStack[w] = 1;
          callNode[cp] = w;
          callArc[cp] = firstOut[w];
          cp++;
          descended = true;
          break;
        } else if (onStack[w] && index[w] < low[v]) {
          low[v] = index[w];
        }
      }
      if (descended) continue;
      // v is finished.
      cp--;
      if (low[v] === index[v]) {
        let size = 0;
        let w: number;
        do {
          w = stack[--sp];
          onStack[w] = 0;
          comp[w] = count;
          size++;
        } while (w !== v);
        sizesList.push(size);
        count++;
      }
      if (cp > 0) {
        const u = callNode[cp - 1];
        if (low[v] < low[u]) low[u] = low[v];
      }
    }
  }
  const sizes = Uint32Array.from(sizesList);
  let largest = -1;
  for (let c = 0; c < count; c++) if (largest < 0 || sizes[c] > sizes[largest]) largest = c;
  return { comp, count, sizes, largest };
}
