//! PyTorch's argument parser (`torch/csrc/utils/python_arg_parser.cpp`) for the Tensor methods
//! whose arguments it checks here (`to`, `cpu`, `cuda`): which signature a call matches, and
//! the TypeErrors it raises when none does.

use super::convert::{extract_scalar, type_name};
use super::dtype::{PyDType, PyDevice};
use super::tensor::PyTensor;
use crate::dtype::DType;
use crate::tensor::layout::MemoryFormat;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString, PyTuple};

#[derive(Clone, Copy)]
pub enum Kind {
    /// `gradrs.device`, a device string or a device index.
    Device,
    /// `gradrs.dtype`, or one of the Python types `float`, `int`, `bool`.
    DType,
    Bool,
    /// A Tensor; for `to`, a Python number too (PyTorch wraps it as a 0-dim tensor).
    Tensor,
    /// `gradrs.preserve_format` & co.
    MemoryFormat,
}

pub struct Param {
    pub name: &'static str,
    pub kind: Kind,
    /// Has a default (may be left out).
    pub optional: bool,
    /// Takes None (its default is None).
    pub none_ok: bool,
    pub kw_only: bool,
}

/// A parameter that may be left out; `none_ok` when its default is None.
pub const fn opt(name: &'static str, kind: Kind, none_ok: bool, kw_only: bool) -> Param {
    Param {
        name,
        kind,
        optional: true,
        none_ok,
        kw_only,
    }
}

pub const fn req(name: &'static str, kind: Kind) -> Param {
    Param {
        name,
        kind,
        optional: false,
        none_ok: false,
        kw_only: false,
    }
}

pub struct Signature {
    pub params: &'static [Param],
    /// As PyTorch lists it (`torch.` spelled `gradrs.`).
    pub text: &'static str,
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Device => "gradrs.device",
        Kind::DType => "gradrs.dtype",
        Kind::Bool => "bool",
        Kind::Tensor => "Tensor",
        Kind::MemoryFormat => "gradrs.memory_format",
    }
}

fn accepts(p: &Param, obj: &Bound<'_, PyAny>, numbers_as_tensors: bool) -> bool {
    if obj.is_none() {
        return p.none_ok;
    }
    let is_bool =
        obj.is_instance_of::<PyBool>() || obj.get_type().name().is_ok_and(|n| n == "bool_");
    match p.kind {
        Kind::Device => {
            obj.is_instance_of::<PyDevice>()
                || obj.is_instance_of::<PyString>()
                || (obj.is_instance_of::<PyInt>() && !is_bool)
        }
        Kind::DType => obj.is_instance_of::<PyDType>() || python_type_dtype(obj).is_some(),
        Kind::Bool => is_bool,
        Kind::Tensor => {
            obj.is_instance_of::<PyTensor>()
                || (numbers_as_tensors && extract_scalar(obj).is_some())
        }
        Kind::MemoryFormat => memory_format_of(obj).is_some(),
    }
}

/// A memory format object (`gradrs.preserve_format` & co., `python/gradrs/_memory_format.py`).
pub fn memory_format_of(obj: &Bound<'_, PyAny>) -> Option<MemoryFormat> {
    if obj.get_type().name().ok()? != "memory_format" {
        return None;
    }
    let name: String = obj.getattr("_name").ok()?.extract().ok()?;
    Some(match name.as_str() {
        "preserve_format" => MemoryFormat::Preserve,
        "contiguous_format" => MemoryFormat::Contiguous,
        "channels_last" => MemoryFormat::ChannelsLast,
        "channels_last_3d" => MemoryFormat::ChannelsLast3d,
        _ => return None,
    })
}

/// A keyword `memory_format` argument of `op` (`clone`, `*_like`): left out or None is
/// `preserve_format`; anything but a memory format is PyTorch's TypeError.
pub fn memory_format_arg(obj: Option<&Bound<'_, PyAny>>, op: &str) -> PyResult<MemoryFormat> {
    match obj {
        None => Ok(MemoryFormat::Preserve),
        Some(o) if o.is_none() => Ok(MemoryFormat::Preserve),
        Some(o) => memory_format_of(o).ok_or_else(|| {
            super::errors::type_error(format!(
                "{op}(): argument 'memory_format' must be gradrs.memory_format, not {}",
                type_name(o)
            ))
        }),
    }
}

/// The dtype a Python type stands for where PyTorch takes a dtype (`x.to(float)`).
pub fn python_type_dtype(obj: &Bound<'_, PyAny>) -> Option<DType> {
    let py = obj.py();
    if obj.is(py.get_type::<PyBool>()) {
        Some(DType::Bool)
    } else if obj.is(py.get_type::<PyInt>()) {
        Some(DType::I64)
    } else if obj.is(py.get_type::<PyFloat>()) {
        Some(DType::F64)
    } else {
        None
    }
}

/// The arguments bound to `sig`'s parameters (None where left out), or PyTorch's error for
/// this one signature.
fn bind<'py>(
    name: &str,
    sig: &Signature,
    args: &[Bound<'py, PyAny>],
    kwargs: &[(String, Bound<'py, PyAny>)],
    numbers_as_tensors: bool,
) -> Result<Vec<Option<Bound<'py, PyAny>>>, String> {
    let positional = sig.params.iter().filter(|p| !p.kw_only).count();
    if args.len() > positional {
        let s = if positional == 1 { "" } else { "s" };
        return Err(format!(
            "{name}() takes {positional} positional argument{s} but {} were given",
            args.len()
        ));
    }
    let mut out = Vec::with_capacity(sig.params.len());
    let mut used = vec![false; kwargs.len()];
    for (i, p) in sig.params.iter().enumerate() {
        let (obj, positional) = if i < args.len() && !p.kw_only {
            (args[i].clone(), true)
        } else if let Some(k) = kwargs.iter().position(|(k, _)| k == p.name) {
            used[k] = true;
            (kwargs[k].1.clone(), false)
        } else {
            if !p.optional {
                let missing: Vec<String> = sig.params[i..]
                    .iter()
                    .filter(|q| !q.optional)
                    .map(|q| format!("\"{}\"", q.name))
                    .collect();
                // sic: PyTorch's plural for exactly one missing argument.
                let s = if missing.len() == 1 { "s" } else { "" };
                return Err(format!(
                    "{name}() missing {} required positional argument{s}: {}",
                    missing.len(),
                    missing.join(", ")
                ));
            }
            out.push(None);
            continue;
        };
        if !accepts(p, &obj, numbers_as_tensors) {
            let at = if positional {
                format!(" (position {})", i + 1)
            } else {
                String::new()
            };
            return Err(format!(
                "{name}(): argument '{}'{at} must be {}, not {}",
                p.name,
                kind_name(p.kind),
                type_name(&obj)
            ));
        }
        out.push(Some(obj));
    }
    for (k, (key, _)) in kwargs.iter().enumerate() {
        if !used[k] {
            let position = sig.params.iter().position(|p| p.name == key);
            return Err(if position.is_some_and(|i| i < args.len()) {
                format!("{name}() got multiple values for argument '{key}'")
            } else {
                format!("{name}() got an unexpected keyword argument '{key}'")
            });
        }
    }
    Ok(out)
}

/// How PyTorch shows the call in "received an invalid combination of arguments - got (...)":
/// keywords come from a hash map, in practice the reverse of the order given.
pub(crate) fn describe(args: &[Bound<'_, PyAny>], kwargs: &[(String, Bound<'_, PyAny>)]) -> String {
    let mut parts: Vec<String> = args.iter().map(type_name).collect();
    let kw = kwargs
        .iter()
        .rev()
        .map(|(k, v)| format!("{k}={}", type_name(v)));
    parts.extend(kw);
    let trailing = if args.is_empty() && !kwargs.is_empty() {
        ", "
    } else {
        ""
    };
    format!("({}{trailing})", parts.join(", "))
}

/// Match a call against `sigs` in order: the index of the first that accepts it and its
/// arguments per parameter, or PyTorch's TypeError.
pub fn parse<'py>(
    name: &str,
    sigs: &[Signature],
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
    numbers_as_tensors: bool,
) -> PyResult<(usize, Vec<Option<Bound<'py, PyAny>>>)> {
    let args: Vec<Bound<'py, PyAny>> = args.iter().collect();
    let mut kw = Vec::new();
    if let Some(d) = kwargs {
        for (k, v) in d.iter() {
            kw.push((k.extract::<String>()?, v));
        }
    }
    let positional = |s: &Signature| s.params.iter().filter(|p| !p.kw_only).count();
    let required = |s: &Signature| s.params.iter().filter(|p| !p.optional).count();
    let most = sigs.iter().map(positional).max().unwrap_or(0);
    if args.len() > most {
        let least = sigs.iter().map(required).min().unwrap_or(0);
        let takes = if least == most {
            most.to_string()
        } else {
            format!("from {least} to {most}")
        };
        let s = if most == 1 { "" } else { "s" };
        let verb = if args.len() == 1 { "was" } else { "were" };
        return Err(super::errors::type_error(format!(
            "{name}() takes {takes} positional argument{s} but {} {verb} given",
            args.len()
        )));
    }
    let mut first_error = None;
    for (i, sig) in sigs.iter().enumerate() {
        match bind(name, sig, &args, &kw, numbers_as_tensors) {
            Ok(bound) => return Ok((i, bound)),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if sigs.len() == 1 {
        return Err(super::errors::type_error(first_error.unwrap_or_default()));
    }
    let listing: String = sigs.iter().map(|s| format!(" * {}\n", s.text)).collect();
    Err(super::errors::type_error(format!(
        "{name}() received an invalid combination of arguments - got {}, but expected one of:\n{listing}",
        describe(&args, &kw)
    )))
}
