//! Integer compute for a model whose weights are stored as int8: rewrites
//! each `MatMul(A, Mul(Cast(W_int8), scale))` of an ONNX graph — weights
//! widened to fp32 before an fp32 multiply — into the dynamically quantized
//! form ONNX Runtime's `quantize_dynamic` writes:
//!
//! ```text
//! DynamicQuantizeLinear(A) -> A_u8, a_scale, a_zero
//! MatMulInteger(A_u8, W_int8, a_zero) -> int32 -> Cast(float) -> Mul(a_scale * scale)
//! ```
//!
//! which the runtime fuses into one integer kernel (VNNI / AVX2 on x86, dot
//! product on ARM). The weights are used as stored: nothing is quantized
//! twice. `git rag model install` checks that the result agrees with the
//! reference graph before it is used ([`crate::semantic::model`]).
//!
//! The graph is edited at the protobuf wire level: every field this module
//! does not rewrite is copied byte for byte, so nothing of the model that a
//! hand-written schema might not know is lost.

use std::collections::HashMap;

#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    #[error("not an ONNX model: {0}")]
    Malformed(String),
    #[error("the graph has no weight matrix multiply of the int8 form (MatMul of Mul(Cast(int8 weights), scale)): nothing to rewrite")]
    NothingToRewrite,
}

type Result<T> = std::result::Result<T, GraphError>;

/// ModelProto.graph, GraphProto.node / .initializer / .output, NodeProto
/// and TensorProto fields (onnx.proto).
const MODEL_GRAPH: u32 = 7;
const MODEL_OPSET_IMPORT: u32 = 8;
const OPSET_DOMAIN: u32 = 1;
const OPSET_VERSION: u32 = 2;
const GRAPH_NODE: u32 = 1;
const GRAPH_INITIALIZER: u32 = 5;
const GRAPH_OUTPUT: u32 = 12;
const NODE_INPUT: u32 = 1;
const NODE_OUTPUT: u32 = 2;
const NODE_NAME: u32 = 3;
const NODE_OP_TYPE: u32 = 4;
const NODE_ATTRIBUTE: u32 = 5;
const NODE_DOMAIN: u32 = 7;
const TENSOR_DIMS: u32 = 1;
const TENSOR_DATA_TYPE: u32 = 2;
const TENSOR_NAME: u32 = 8;
const TENSOR_RAW_DATA: u32 = 9;
const VALUE_INFO_NAME: u32 = 1;
const ATTRIBUTE_NAME: u32 = 1;
const ATTRIBUTE_I: u32 = 3;
const ATTRIBUTE_INTS: u32 = 8;
const ATTRIBUTE_TYPE: u32 = 20;
const ATTRIBUTE_TYPE_INT: u64 = 2;
const ATTRIBUTE_TYPE_INTS: u64 = 7;
/// TensorProto.DataType.
const FLOAT: u64 = 1;
const UINT8: u64 = 2;
const INT8: u64 = 3;
const INT64: u64 = 7;

const LEN: u8 = 2;

/// One field of a protobuf message: its number, wire type, the value
/// (the payload of a length-delimited field) and the whole field as written.
struct Field<'a> {
    number: u32,
    wire: u8,
    value: &'a [u8],
    raw: &'a [u8],
}

fn bad(what: &str) -> GraphError {
    GraphError::Malformed(what.to_string())
}

fn varint(buf: &[u8], pos: &mut usize) -> Result<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*pos).ok_or_else(|| bad("truncated varint"))?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(bad("varint too long"))
}

fn fields(buf: &[u8]) -> Result<Vec<Field<'_>>> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < buf.len() {
        let start = pos;
        let key = varint(buf, &mut pos)?;
        let (number, wire) = ((key >> 3) as u32, (key & 7) as u8);
        let value_start = pos;
        let end = match wire {
            0 => {
                varint(buf, &mut pos)?;
                pos
            }
            1 => pos + 8,
            2 => {
                let n = usize::try_from(varint(buf, &mut pos)?).map_err(|_| bad("length too large"))?;
                pos.checked_add(n).ok_or_else(|| bad("length too large"))?
            }
            5 => pos + 4,
            _ => return Err(bad(&format!("unsupported wire type {wire}"))),
        };
        if end > buf.len() {
            return Err(bad("a field runs past the end"));
        }
        let value = if wire == LEN { &buf[pos..end] } else { &buf[value_start..end] };
        out.push(Field { number, wire, value, raw: &buf[start..end] });
        pos = end;
    }
    Ok(out)
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_bytes(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    put_varint(out, (u64::from(number) << 3) | u64::from(LEN));
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn put_uint(out: &mut Vec<u8>, number: u32, v: u64) {
    put_varint(out, u64::from(number) << 3);
    put_varint(out, v);
}

fn text(f: &Field) -> Result<String> {
    String::from_utf8(f.value.to_vec()).map_err(|_| bad("a name is not UTF-8"))
}

/// What the rewrite needs of a node.
struct Node<'a> {
    raw: &'a [u8],
    op_type: String,
    domain: String,
    inputs: Vec<String>,
    outputs: Vec<String>,
}

fn node<'a>(f: &Field<'a>) -> Result<Node<'a>> {
    let mut n = Node { raw: f.raw, op_type: String::new(), domain: String::new(), inputs: Vec::new(), outputs: Vec::new() };
    for g in fields(f.value)? {
        match (g.number, g.wire) {
            (NODE_INPUT, LEN) => n.inputs.push(text(&g)?),
            (NODE_OUTPUT, LEN) => n.outputs.push(text(&g)?),
            (NODE_OP_TYPE, LEN) => n.op_type = text(&g)?,
            (NODE_DOMAIN, LEN) => n.domain = text(&g)?,
            _ => {}
        }
    }
    Ok(n)
}

/// An attribute of a new node.
enum Attr {
    Int(&'static str, u64),
    Ints(&'static str, &'static [i64]),
}

/// A new node, encoded as a GraphProto.node field.
fn new_node(op_type: &str, name: &str, inputs: &[&str], outputs: &[&str], attrs: &[Attr]) -> Vec<u8> {
    let mut n = Vec::new();
    for i in inputs {
        put_bytes(&mut n, NODE_INPUT, i.as_bytes());
    }
    for o in outputs {
        put_bytes(&mut n, NODE_OUTPUT, o.as_bytes());
    }
    put_bytes(&mut n, NODE_NAME, name.as_bytes());
    put_bytes(&mut n, NODE_OP_TYPE, op_type.as_bytes());
    for attr in attrs {
        let mut a = Vec::new();
        match attr {
            Attr::Int(name, v) => {
                put_bytes(&mut a, ATTRIBUTE_NAME, name.as_bytes());
                put_uint(&mut a, ATTRIBUTE_I, *v);
                put_uint(&mut a, ATTRIBUTE_TYPE, ATTRIBUTE_TYPE_INT);
            }
            Attr::Ints(name, vs) => {
                put_bytes(&mut a, ATTRIBUTE_NAME, name.as_bytes());
                for v in *vs {
                    // int64 as two's complement in a varint.
                    put_uint(&mut a, ATTRIBUTE_INTS, *v as u64);
                }
                put_uint(&mut a, ATTRIBUTE_TYPE, ATTRIBUTE_TYPE_INTS);
            }
        }
        put_bytes(&mut n, NODE_ATTRIBUTE, &a);
    }
    let mut out = Vec::new();
    put_bytes(&mut out, GRAPH_NODE, &n);
    out
}

/// A scalar (or, with `dims`, a small vector) constant, encoded as a
/// GraphProto.initializer field.
fn new_constant(name: &str, data_type: u64, dims: &[u64], raw: &[u8]) -> Vec<u8> {
    let mut t = Vec::new();
    for d in dims {
        put_uint(&mut t, TENSOR_DIMS, *d);
    }
    put_uint(&mut t, TENSOR_DATA_TYPE, data_type);
    put_bytes(&mut t, TENSOR_NAME, name.as_bytes());
    put_bytes(&mut t, TENSOR_RAW_DATA, raw);
    let mut out = Vec::new();
    put_bytes(&mut out, GRAPH_INITIALIZER, &t);
    out
}

/// Names of the constants the per-token form uses.
const C_127: &str = "git_rag_integer_127";
const C_TINY: &str = "git_rag_integer_tiny";
const C_ONE: &str = "git_rag_integer_one";
const C_ZERO_POINT: &str = "git_rag_integer_zero_point";
const C_LAST_AXIS: &str = "git_rag_integer_last_axis";

/// A weight multiply found in the graph.
struct Rewrite {
    /// Node indexes: the MatMul, and the Mul and Cast that widen its weights.
    matmul: usize,
    widen: [usize; 2],
    activations: String,
    weights: String,
    scale: String,
    output: String,
}

/// How the activations (the left operand) are quantized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activations {
    /// One scale per tensor (`DynamicQuantizeLinear`, fused by the runtime
    /// into one kernel): fastest, but a padded batch shares a scale, so
    /// texts must be run one at a time.
    PerTensor,
    /// One scale per token (symmetric, offset to uint8): closer to the
    /// reference (cosine 0.998 against 0.994), independent of batch-mates,
    /// a few element-wise ops more (raw, 1.6x the reference's speed
    /// against 1.9x).
    PerToken,
}

/// What [`rewrite`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RewriteReport {
    /// Matrix multiplies now computed in integers.
    pub integer: usize,
    /// Matrix multiplies left in floating point (activation × activation).
    pub float: usize,
}

/// Rewrites the model's int8-weight matrix multiplies to integer ones.
pub fn rewrite(model: &[u8], activations: Activations) -> Result<(Vec<u8>, RewriteReport)> {
    let top = fields(model)?;
    let graph_field = top.iter().find(|f| f.number == MODEL_GRAPH && f.wire == LEN).ok_or_else(|| bad("no graph"))?;
    let graph = fields(graph_field.value)?;
    let opset = default_opset(&top)?;
    let tensor_types = initializer_types(&graph)?;
    let nodes: Vec<Node> = graph.iter().filter(|f| f.number == GRAPH_NODE && f.wire == LEN).map(node).collect::<Result<_>>()?;
    let (rewrites, float) = find_rewrites(&graph, &nodes, &tensor_types)?;
    if rewrites.is_empty() {
        return Err(GraphError::NothingToRewrite);
    }
    let (node_bytes, constants) = emit(&nodes, &rewrites, activations, opset);
    let mut new_graph = Vec::with_capacity(graph_field.value.len() + node_bytes.len());
    let mut nodes_written = false;
    for f in &graph {
        if f.number == GRAPH_NODE && f.wire == LEN {
            if !nodes_written {
                new_graph.extend_from_slice(&node_bytes);
                nodes_written = true;
            }
        } else {
            new_graph.extend_from_slice(f.raw);
        }
    }
    new_graph.extend_from_slice(&constants);
    let mut out = Vec::with_capacity(model.len() + node_bytes.len());
    for f in &top {
        if std::ptr::eq(f, graph_field) {
            put_bytes(&mut out, MODEL_GRAPH, &new_graph);
        } else {
            out.extend_from_slice(f.raw);
        }
    }
    Ok((out, RewriteReport { integer: rewrites.len(), float }))
}

/// The version of the default operator set the model imports (ReduceMax
/// takes its axes as an attribute before 18, as an input from 18).
fn default_opset(top: &[Field]) -> Result<u64> {
    let mut opset = 0;
    for f in top.iter().filter(|f| f.number == MODEL_OPSET_IMPORT && f.wire == LEN) {
        let (mut domain, mut version) = (String::new(), 0);
        for g in fields(f.value)? {
            match (g.number, g.wire) {
                (OPSET_DOMAIN, LEN) => domain = text(&g)?,
                (OPSET_VERSION, 0) => version = varint(g.value, &mut 0)?,
                _ => {}
            }
        }
        if domain.is_empty() || domain == "ai.onnx" {
            opset = version;
        }
    }

    Ok(opset)
}

/// The data type of each initializer, by name.
fn initializer_types(graph: &[Field]) -> Result<HashMap<String, u64>> {
    let mut tensor_types: HashMap<String, u64> = HashMap::new();
    for f in graph.iter().filter(|f| f.number == GRAPH_INITIALIZER && f.wire == LEN) {
        let (mut name, mut data_type) = (None, None);
        for g in fields(f.value)? {
            match (g.number, g.wire) {
                (TENSOR_NAME, LEN) => name = Some(text(&g)?),
                (TENSOR_DATA_TYPE, 0) => data_type = Some(varint(g.value, &mut 0)?),
                _ => {}
            }
        }
        if let (Some(n), Some(t)) = (name, data_type) {
            tensor_types.insert(n, t);
        }
    }
    Ok(tensor_types)
}

/// The weight multiplies of the int8 form, and how many multiplies stay in
/// floating point.
fn find_rewrites(graph: &[Field], nodes: &[Node], tensor_types: &HashMap<String, u64>) -> Result<(Vec<Rewrite>, usize)> {
    let mut producer: HashMap<&str, usize> = HashMap::new();
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        for o in &n.outputs {
            producer.insert(o, i);
        }
        for input in &n.inputs {
            *uses.entry(input).or_default() += 1;
        }
    }
    let mut graph_outputs = Vec::new();
    for f in graph.iter().filter(|f| f.number == GRAPH_OUTPUT && f.wire == LEN) {
        if let Some(name) = fields(f.value)?.iter().find(|g| g.number == VALUE_INFO_NAME && g.wire == LEN) {
            graph_outputs.push(text(name)?);
        }
    }
    for o in &graph_outputs {
        *uses.entry(o).or_default() += 1;
    }

    let standard = |n: &Node, op: &str| n.op_type == op && (n.domain.is_empty() || n.domain == "ai.onnx");
    let mut rewrites: Vec<Rewrite> = Vec::new();
    let mut float = 0;
    for (i, n) in nodes.iter().enumerate().filter(|(_, n)| standard(n, "MatMul")) {
        let found = (|| {
            let [a, w] = n.inputs.as_slice() else { return None };
            let &mul = producer.get(w.as_str())?;
            let m = &nodes[mul];
            if !standard(m, "Mul") || uses.get(w.as_str()) != Some(&1) || m.inputs.len() != 2 {
                return None;
            }
            // Mul(Cast(q), scale), in either order.
            let (cast, scale) = [(0, 1), (1, 0)].into_iter().find_map(|(c, s)| {
                let &cast = producer.get(m.inputs[c].as_str())?;
                standard(&nodes[cast], "Cast").then_some((cast, m.inputs[s].clone()))
            })?;
            let c = &nodes[cast];
            let q = c.inputs.first()?;
            let weights_ok = matches!(tensor_types.get(q.as_str()), Some(&INT8) | Some(&UINT8));
            if !weights_ok || tensor_types.get(scale.as_str()) != Some(&FLOAT) || uses.get(c.outputs.first()?.as_str()) != Some(&1) {
                return None;
            }
            Some(Rewrite { matmul: i, widen: [mul, cast], activations: a.clone(), weights: q.clone(), scale, output: n.outputs.first()?.clone() })
        })();
        match found {
            Some(r) => rewrites.push(r),
            None => float += 1,
        }
    }

    Ok((rewrites, float))
}

/// The new node list (each rewritten MatMul replaced in place by its
/// integer form, the widening nodes dropped) and the constants it uses.
fn emit(nodes: &[Node], rewrites: &[Rewrite], activations: Activations, opset: u64) -> (Vec<u8>, Vec<u8>) {
    let by_matmul: HashMap<usize, &Rewrite> = rewrites.iter().map(|r| (r.matmul, r)).collect();
    let dropped: std::collections::HashSet<usize> = rewrites.iter().flat_map(|r| r.widen).collect();
    let mut node_bytes = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        if dropped.contains(&i) {
            continue;
        }
        let Some(r) = by_matmul.get(&i) else {
            node_bytes.extend_from_slice(n.raw);
            continue;
        };
        let p = format!("{}_integer", r.output);
        let v = |suffix: &str| format!("{p}_{suffix}");
        let mut step = 0;
        let mut add = |op: &str, inputs: &[&str], outputs: &[&str], attrs: &[Attr]| {
            step += 1;
            node_bytes.extend(new_node(op, &format!("{p}_{step}_{op}"), inputs, outputs, attrs));
        };
        match activations {
            Activations::PerTensor => {
                let (aq, a_scale, a_zero, y, yf, scale) = (v("a"), v("a_scale"), v("a_zero"), v("y"), v("y_float"), v("scale"));
                add("DynamicQuantizeLinear", &[&r.activations], &[&aq, &a_scale, &a_zero], &[]);
                add("MatMulInteger", &[&aq, &r.weights, &a_zero], &[&y], &[]);
                add("Cast", &[&y], &[&yf], &[Attr::Int("to", FLOAT)]);
                add("Mul", &[&a_scale, &r.scale], &[&scale], &[]);
                add("Mul", &[&yf, &scale], &[&r.output], &[]);
            }
            Activations::PerToken => {
                // s = max|a| / 127 per token; q = round(a / s) + 128 as uint8
                // (QuantizeLinear with scale 1: one fused pass), zero point 128.
                let (abs, max, s0, s, x, q, y, yf, ys) = (v("abs"), v("max"), v("s0"), v("s"), v("x"), v("q"), v("y"), v("yf"), v("ys"));
                add("Abs", &[&r.activations], &[&abs], &[]);
                if opset >= 18 {
                    add("ReduceMax", &[&abs, C_LAST_AXIS], &[&max], &[Attr::Int("keepdims", 1)]);
                } else {
                    add("ReduceMax", &[&abs], &[&max], &[Attr::Ints("axes", &[-1]), Attr::Int("keepdims", 1)]);
                }
                add("Div", &[&max, C_127], &[&s0], &[]);
                add("Max", &[&s0, C_TINY], &[&s], &[]);
                add("Div", &[&r.activations, &s], &[&x], &[]);
                add("QuantizeLinear", &[&x, C_ONE, C_ZERO_POINT], &[&q], &[]);
                add("MatMulInteger", &[&q, &r.weights, C_ZERO_POINT], &[&y], &[]);
                add("Cast", &[&y], &[&yf], &[Attr::Int("to", FLOAT)]);
                add("Mul", &[&yf, &s], &[&ys], &[]);
                add("Mul", &[&ys, &r.scale], &[&r.output], &[]);
            }
        }
    }
    let constants: Vec<u8> = match activations {
        Activations::PerTensor => Vec::new(),
        Activations::PerToken => [
            new_constant(C_127, FLOAT, &[], &127f32.to_le_bytes()),
            new_constant(C_TINY, FLOAT, &[], &1e-12f32.to_le_bytes()),
            new_constant(C_ONE, FLOAT, &[], &1f32.to_le_bytes()),
            new_constant(C_ZERO_POINT, UINT8, &[], &[128]),
            new_constant(C_LAST_AXIS, INT64, &[1], &(-1i64).to_le_bytes()),
        ]
        .concat(),
    };
    (node_bytes, constants)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wire_format_round_trips_and_bad_input_is_refused() {
        let mut msg = Vec::new();
        put_bytes(&mut msg, 3, b"name");
        put_uint(&mut msg, 2, 300);
        let fs = fields(&msg).unwrap();
        assert_eq!((fs[0].number, fs[0].value, fs[1].number), (3, &b"name"[..], 2));
        assert_eq!(varint(fs[1].value, &mut 0).unwrap(), 300);
        assert_eq!(fs.iter().flat_map(|f| f.raw.to_vec()).collect::<Vec<_>>(), msg);
        assert!(fields(&msg[..msg.len() - 1]).is_err(), "a truncated message");
        assert!(matches!(rewrite(b"not a model at all", Activations::PerTensor), Err(GraphError::Malformed(_))));
        let mut empty_graph = Vec::new();
        put_bytes(&mut empty_graph, MODEL_GRAPH, &[]);
        assert!(matches!(rewrite(&empty_graph, Activations::PerTensor), Err(GraphError::NothingToRewrite)));
    }
}
