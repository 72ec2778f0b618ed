//! An HNSW graph held in memory: what CREATE INDEX (and REINDEX, VACUUM) build over the
//! existing rows before writing the index's pages in one pass, so a build does not pay for a
//! page update per link.
//!
//! What it guarantees: the graph the algorithms of `graph.rs` build through it, with every
//! vector in one `f32` arena; node ids are positions in insertion order.
//!
//! A cosine build also keeps each vector scaled to unit length, so that a distance during the
//! build is one inner product (`1 - â·b̂`) instead of three (the vector and the norms); the
//! pages receive the vectors as the rows hold them. (A zero vector stays zero, so its
//! distance to anything is 1 here where the SQL distance is NaN: it only decides where the
//! node is linked.)

use crate::exec::error::{ExecError, ExecResult};
use crate::types::vector::kernels::Metric;

use super::graph::{self, GraphRead, GraphWrite, NodeId, Parameters, Query};

/// One node: where its vector is, its row, and its neighbour list per layer (0 to level).
#[derive(Debug, Clone)]
pub struct MemoryNode {
    pub row_id: i64,
    pub neighbors: Vec<Vec<NodeId>>,
}

/// The graph.
#[derive(Debug)]
pub struct MemoryGraph {
    metric: Metric,
    dimensions: usize,
    parameters: Parameters,
    vectors: Vec<f32>,
    /// For cosine: each vector at unit length, in the same arena layout.
    unit: Option<Vec<f32>>,
    nodes: Vec<MemoryNode>,
    entry: Option<(NodeId, usize)>,
}

/// `vector` scaled to unit length (a zero vector stays zero).
fn unit_vector(vector: &[f32]) -> Vec<f32> {
    let norm = crate::types::vector::norm(vector);
    if norm > 0.0 {
        vector
            .iter()
            .map(|x| (f64::from(*x) / norm) as f32)
            .collect()
    } else {
        vector.to_vec()
    }
}

impl MemoryGraph {
    pub fn new(metric: Metric, dimensions: usize, parameters: Parameters) -> Self {
        MemoryGraph {
            metric,
            dimensions,
            parameters,
            vectors: Vec::new(),
            unit: (metric == Metric::Cosine).then(Vec::new),
            nodes: Vec::new(),
            entry: None,
        }
    }

    /// The vector the build measures node `node` by: unit length for cosine.
    fn measured(&self, node: NodeId) -> &[f32] {
        let start = node as usize * self.dimensions;
        self.unit
            .as_deref()
            .unwrap_or(&self.vectors)
            .get(start..start + self.dimensions)
            .unwrap_or(&[])
    }

    /// The distance between two vectors as the build measures them.
    fn distance(&self, a: &[f32], b: &[f32]) -> f64 {
        if self.unit.is_some() {
            (1.0 - crate::types::vector::kernels::inner_product(a, b)).clamp(0.0, 2.0)
        } else {
            self.metric.distance_unchecked(a, b)
        }
    }

    /// Adds a row's vector at `level` and links it in.
    pub fn insert(&mut self, row_id: i64, vector: &[f32], level: usize) -> ExecResult<NodeId> {
        if vector.len() != self.dimensions {
            return Err(ExecError::internal(
                "vector of the wrong dimension in an HNSW build",
            ));
        }
        let node = self.nodes.len() as NodeId;
        self.vectors.extend_from_slice(vector);
        self.nodes.push(MemoryNode {
            row_id,
            neighbors: vec![Vec::new(); level + 1],
        });
        match &mut self.unit {
            Some(unit) => {
                let scaled = unit_vector(vector);
                unit.extend_from_slice(&scaled);
                graph::insert(self, self.parameters, node, &scaled, level)?;
            }
            None => graph::insert(self, self.parameters, node, vector, level)?,
        }
        Ok(node)
    }

    /// The dimension of the vectors.
    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// The nodes, by id.
    pub fn nodes(&self) -> &[MemoryNode] {
        &self.nodes
    }

    /// Node `node`'s vector.
    pub fn vector(&self, node: NodeId) -> &[f32] {
        let start = node as usize * self.dimensions;
        self.vectors
            .get(start..start + self.dimensions)
            .unwrap_or(&[])
    }

    /// The entry point and its level.
    pub fn entry(&self) -> Option<(NodeId, usize)> {
        self.entry
    }

    fn node(&self, node: NodeId) -> ExecResult<&MemoryNode> {
        self.nodes
            .get(node as usize)
            .ok_or_else(|| ExecError::internal("HNSW build refers to a missing node"))
    }
}

impl GraphRead for MemoryGraph {
    fn entry_point(&self) -> ExecResult<Option<(NodeId, usize)>> {
        Ok(self.entry)
    }

    /// `query` as the build measures it: for cosine, already at unit length (`insert`
    /// scales it; the tests' searches pass unit queries through `search`).
    fn distance_to(&self, node: NodeId, query: &Query<'_>) -> ExecResult<f64> {
        Ok(self.distance(self.measured(node), query.values))
    }

    fn neighbors(&self, node: NodeId, level: usize, out: &mut Vec<NodeId>) -> ExecResult<()> {
        out.clear();
        if let Some(list) = self.node(node)?.neighbors.get(level) {
            out.extend_from_slice(list);
        }
        Ok(())
    }
}

impl GraphWrite for MemoryGraph {
    fn distance_between(&self, a: NodeId, b: NodeId) -> ExecResult<f64> {
        Ok(self.distance(self.measured(a), self.measured(b)))
    }

    fn set_neighbors(
        &mut self,
        node: NodeId,
        level: usize,
        neighbors: &[NodeId],
    ) -> ExecResult<()> {
        let entry = self
            .nodes
            .get_mut(node as usize)
            .and_then(|n| n.neighbors.get_mut(level))
            .ok_or_else(|| ExecError::internal("HNSW build links above a node's level"))?;
        entry.clear();
        entry.extend_from_slice(neighbors);
        Ok(())
    }

    fn set_entry_point(&mut self, node: NodeId, level: usize) -> ExecResult<()> {
        self.entry = Some((node, level));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::index_access::hnsw::test_data::clustered;
    use std::collections::HashSet;

    /// Clustered vectors (16 centres, small noise), from a fixed xorshift seed.
    fn build(metric: Metric, vectors: &[Vec<f32>], parameters: Parameters) -> MemoryGraph {
        let mut graph = MemoryGraph::new(metric, vectors[0].len(), parameters);
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for (i, vector) in vectors.iter().enumerate() {
            state = graph::xorshift(state);
            graph
                .insert(
                    i as i64,
                    vector,
                    parameters.level_for(graph::unit_draw(state)),
                )
                .unwrap();
        }
        graph
    }

    #[test]
    fn lists_respect_their_bounds_and_never_hold_the_node() {
        let vectors = clustered(1500, 16, 16, 7);
        let parameters = Parameters {
            m: 8,
            ef_construction: 40,
        };
        let graph = build(Metric::L2, &vectors, parameters);
        let (entry, top) = graph.entry().unwrap();
        for (id, node) in graph.nodes().iter().enumerate() {
            assert!(
                node.neighbors.len() <= top + 1,
                "node {id} above the entry level"
            );
            for (level, list) in node.neighbors.iter().enumerate() {
                assert!(list.len() <= parameters.max_neighbors(level));
                assert!(!list.contains(&(id as NodeId)), "node {id} links itself");
                let unique: HashSet<_> = list.iter().collect();
                assert_eq!(unique.len(), list.len(), "node {id} repeats a neighbour");
                for neighbor in list {
                    assert!(
                        graph.nodes()[*neighbor as usize].neighbors.len() > level,
                        "node {id} links {neighbor} on a layer it is not on"
                    );
                }
            }
            // Every node but the first has neighbours on layer 0.
            if id > 0 {
                assert!(!node.neighbors[0].is_empty(), "node {id} is unlinked");
            }
        }
        assert_eq!(graph.nodes()[entry as usize].neighbors.len(), top + 1);
    }

    /// recall@10 against exact search on clustered data, for each metric.
    #[test]
    fn recall_against_exact_search() {
        // Queries come from the same clusters as the rows but are not rows themselves.
        let mut vectors = clustered(2050, 32, 16, 11);
        let queries = vectors.split_off(2000);
        let parameters = Parameters {
            m: 16,
            ef_construction: 64,
        };
        for metric in [
            Metric::L2,
            Metric::Cosine,
            Metric::NegativeInnerProduct,
            Metric::L1,
        ] {
            let graph = build(metric, &vectors, parameters);
            let mut hits = 0;
            for query in &queries {
                let mut exact: Vec<(f64, usize)> = vectors
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (metric.distance_unchecked(v, query), i))
                    .collect();
                exact.sort_by(|a, b| a.0.total_cmp(&b.0));
                let truth: HashSet<usize> = exact.iter().take(10).map(|(_, i)| *i).collect();
                let scaled = match metric {
                    Metric::Cosine => unit_vector(query),
                    _ => query.clone(),
                };
                let found = graph::search(&graph, &scaled, 10, 40).unwrap();
                assert_eq!(found.len(), 10);
                hits += found
                    .iter()
                    .filter(|s| truth.contains(&(s.node as usize)))
                    .count();
            }
            let recall = hits as f64 / (queries.len() * 10) as f64;
            assert!(recall >= 0.95, "{metric:?} recall@10 {recall}");
        }
    }

    #[test]
    fn an_empty_graph_finds_nothing_and_a_single_node_finds_itself() {
        let parameters = Parameters {
            m: 4,
            ef_construction: 8,
        };
        let mut graph = MemoryGraph::new(Metric::L2, 2, parameters);
        assert!(
            graph::search(&graph, &[0.0, 0.0], 5, 10)
                .unwrap()
                .is_empty()
        );
        graph.insert(7, &[1.0, 1.0], 2).unwrap();
        let found = graph::search(&graph, &[0.0, 0.0], 5, 10).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(graph.nodes()[found[0].node as usize].row_id, 7);
        assert!(graph.insert(8, &[1.0], 0).is_err());
    }

    #[test]
    fn level_draws_follow_the_distribution() {
        let parameters = Parameters {
            m: 16,
            ef_construction: 64,
        };
        assert_eq!(parameters.level_for(1.0), 0);
        assert_eq!(parameters.level_for(0.5), 0);
        assert_eq!(parameters.level_for(1.0 / 16.0), 1);
        assert_eq!(parameters.level_for(1.0 / 256.0 - 1e-12), 2);
        assert_eq!(parameters.level_for(0.0), graph::MAX_LEVEL);
    }
}
