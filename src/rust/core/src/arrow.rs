//! Reading a string column straight from the Arrow C data interface, so a
//! table batch (DuckDB's Arrow stream) is searched without first becoming R
//! strings. Only the structs of the C data interface are defined here (no
//! arrow crate): <https://arrow.apache.org/docs/format/CDataInterface.html>.
//!
//! [`string_views`] turns a `utf8` (`u`), `large_utf8` (`U`) or
//! `utf8_view` (`vu`) array into one byte slice per element (`None` for a
//! null), borrowing the array's buffers. [`OwnedArray`] takes a batch over
//! from its producer ("move" in the interface's terms) and releases it when
//! dropped; it is not `Send`, so it is released on the thread that owns it.

use std::os::raw::{c_char, c_void};

/// `struct ArrowArray` of the C data interface.
#[repr(C)]
#[derive(Debug)]
pub struct ArrowArray {
    pub length: i64,
    pub null_count: i64,
    pub offset: i64,
    pub n_buffers: i64,
    pub n_children: i64,
    pub buffers: *mut *const c_void,
    pub children: *mut *mut ArrowArray,
    pub dictionary: *mut ArrowArray,
    pub release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    pub private_data: *mut c_void,
}

/// `struct ArrowSchema` of the C data interface (not read here; for layout
/// completeness of callers that hold one).
#[repr(C)]
#[derive(Debug)]
pub struct ArrowSchema {
    pub format: *const c_char,
    pub name: *const c_char,
    pub metadata: *const c_char,
    pub flags: i64,
    pub n_children: i64,
    pub children: *mut *mut ArrowSchema,
    pub dictionary: *mut ArrowSchema,
    pub release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    pub private_data: *mut c_void,
}

/// The string layouts read here, by their format string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringLayout {
    /// `u`: int32 offsets + data.
    Utf8,
    /// `U`: int64 offsets + data.
    LargeUtf8,
    /// `vu`: 16-byte views, inline (<= 12 bytes) or into variadic buffers.
    View,
}

impl StringLayout {
    /// The layout of an Arrow format string, `None` for any other type
    /// (dictionary-encoded, binary, null, ...): the caller converts those.
    pub fn parse(format: &str) -> Option<Self> {
        match format {
            "u" => Some(StringLayout::Utf8),
            "U" => Some(StringLayout::LargeUtf8),
            "vu" => Some(StringLayout::View),
            _ => None,
        }
    }
}

/// One slice per element of `array[from .. from + n]` (logical indices,
/// before the array's own `offset`), `None` for nulls.
///
/// Checks what can be checked without the buffers' sizes (which the C
/// interface does not carry): counts, null pointers, negative or decreasing
/// offsets, view buffer indices. Everything else is the producer's promise.
///
/// # Safety
/// `array` must be a valid, unreleased array of `layout`, and its buffers
/// must stay alive and unchanged while the slices are used (the slices
/// borrow `array`).
pub unsafe fn string_views(
    array: &ArrowArray,
    layout: StringLayout,
    from: usize,
    n: usize,
) -> Result<Vec<Option<&[u8]>>, String> {
    if array.release.is_none() {
        return Err("the array has been released".into());
    }
    if array.length < 0 || array.offset < 0 {
        return Err(format!("negative length ({}) or offset ({})", array.length, array.offset));
    }
    let end = from.checked_add(n).ok_or("row range overflows")?;
    if end > array.length as usize {
        return Err(format!("rows {from}..{end} asked of an array of {} rows", array.length));
    }
    // utf8: validity, offsets, data; view: validity, views, data
    // buffers (any number), variadic sizes
    let min_buffers = 3;
    if array.n_buffers < min_buffers || array.buffers.is_null() {
        return Err(format!("{} buffers, expected at least {min_buffers}", array.n_buffers));
    }
    if !array.dictionary.is_null() {
        return Err("a dictionary-encoded array".into());
    }
    let mut out = Vec::with_capacity(n);
    if n == 0 {
        return Ok(out);
    }
    let buffers = std::slice::from_raw_parts(array.buffers, array.n_buffers as usize);
    let base = array.offset as usize + from;
    let validity = buffers[0] as *const u8;
    let valid = |i: usize| -> bool {
        if validity.is_null() {
            return true;
        }
        let bit = base + i;
        (*validity.add(bit / 8) >> (bit % 8)) & 1 == 1
    };
    if validity.is_null() && array.null_count > 0 {
        return Err("nulls without a validity buffer".into());
    }
    match layout {
        StringLayout::Utf8 | StringLayout::LargeUtf8 => {
            let offsets = buffers[1];
            if offsets.is_null() {
                return Err("no offsets buffer".into());
            }
            let data = buffers[2] as *const u8;
            let offset_at = |j: usize| -> i64 {
                if layout == StringLayout::Utf8 {
                    *(offsets as *const i32).add(j) as i64
                } else {
                    *(offsets as *const i64).add(j)
                }
            };
            for i in 0..n {
                if !valid(i) {
                    out.push(None);
                    continue;
                }
                let (a, b) = (offset_at(base + i), offset_at(base + i + 1));
                if a < 0 || b < a {
                    return Err(format!("invalid offsets {a}..{b} at row {}", from + i + 1));
                }
                out.push(Some(bytes(data, a as usize, (b - a) as usize)?));
            }
        }
        StringLayout::View => {
            let views = buffers[1] as *const u8;
            if views.is_null() {
                return Err("no views buffer".into());
            }
            // buffers: validity, views, data buffers..., variadic sizes
            let n_data = buffers.len() - 3;
            for i in 0..n {
                if !valid(i) {
                    out.push(None);
                    continue;
                }
                let view = views.add(16 * (base + i));
                let len = read_i32(view);
                if len < 0 {
                    return Err(format!("negative string length at row {}", from + i + 1));
                }
                let len = len as usize;
                if len <= 12 {
                    // inline: the bytes are in the view itself
                    out.push(Some(std::slice::from_raw_parts(view.add(4), len)));
                } else {
                    let buf = read_i32(view.add(8));
                    let off = read_i32(view.add(12));
                    if buf < 0 || buf as usize >= n_data || off < 0 {
                        return Err(format!("invalid view (buffer {buf}, offset {off}) at row {}", from + i + 1));
                    }
                    let data = buffers[2 + buf as usize] as *const u8;
                    out.push(Some(bytes(data, off as usize, len)?));
                }
            }
        }
    }
    Ok(out)
}

unsafe fn read_i32(p: *const u8) -> i32 {
    i32::from_le_bytes(std::ptr::read_unaligned(p as *const [u8; 4]))
}

unsafe fn bytes<'a>(data: *const u8, at: usize, len: usize) -> Result<&'a [u8], String> {
    if len == 0 {
        return Ok(&[]);
    }
    if data.is_null() {
        return Err("no data buffer".into());
    }
    Ok(std::slice::from_raw_parts(data.add(at), len))
}

/// An Arrow array taken over from its producer: the struct is moved here and
/// the source marked released (`release = NULL`), as the C data interface
/// allows, so no one else can release the buffers while this lives. Dropping
/// it calls the producer's release callback. Raw pointers make it neither
/// `Send` nor `Sync`: it is dropped on the thread that took it.
#[derive(Debug)]
pub struct OwnedArray {
    array: Box<ArrowArray>,
}

impl OwnedArray {
    /// Move `*src` here.
    ///
    /// # Safety
    /// `src` must point to a valid `ArrowArray` that nothing else reads or
    /// releases concurrently; afterwards it is marked released.
    pub unsafe fn take(src: *mut ArrowArray) -> Result<OwnedArray, String> {
        if src.is_null() {
            return Err("a NULL array pointer".into());
        }
        if (*src).release.is_none() {
            return Err("the array has already been released".into());
        }
        let array = Box::new(std::ptr::read(src));
        (*src).release = None;
        Ok(OwnedArray { array })
    }

    pub fn get(&self) -> &ArrowArray {
        &self.array
    }

    /// Child `i` of a struct array (a column of a batch).
    pub fn child(&self, i: usize) -> Result<&ArrowArray, String> {
        let a = &*self.array;
        if a.n_children < 0 || i >= a.n_children as usize || a.children.is_null() {
            return Err(format!("no column {} in a batch of {} columns", i + 1, a.n_children));
        }
        // SAFETY: `children` has `n_children` entries, alive until release
        let c = unsafe { *a.children.add(i) };
        if c.is_null() {
            return Err(format!("column {} is a NULL array", i + 1));
        }
        Ok(unsafe { &*c })
    }
}

impl Drop for OwnedArray {
    fn drop(&mut self) {
        if let Some(release) = self.array.release {
            // SAFETY: the producer's callback, called once, on the owner's thread
            unsafe { release(&mut *self.array) };
            self.array.release = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Owns the buffers of a test array; `release` drops nothing (the test
    /// keeps them) but counts calls.
    struct Built {
        bufs: Vec<Vec<u8>>,
        ptrs: Vec<*const c_void>,
    }

    static RELEASED: AtomicUsize = AtomicUsize::new(0);
    unsafe extern "C" fn count_release(a: *mut ArrowArray) {
        RELEASED.fetch_add(1, Ordering::SeqCst);
        (*a).release = None;
    }

    fn validity(valid: &[bool]) -> Vec<u8> {
        let mut v = vec![0u8; valid.len().div_ceil(8)];
        for (i, &b) in valid.iter().enumerate() {
            if b {
                v[i / 8] |= 1 << (i % 8);
            }
        }
        v
    }

    fn utf8(strings: &[Option<&str>], large: bool) -> (Built, ArrowArray) {
        let mut data = Vec::new();
        let mut offs: Vec<u8> = Vec::new();
        let push = |o: &mut Vec<u8>, x: usize| {
            if large {
                o.extend((x as i64).to_le_bytes())
            } else {
                o.extend((x as i32).to_le_bytes())
            }
        };
        push(&mut offs, 0);
        for s in strings {
            data.extend(s.unwrap_or("").bytes());
            push(&mut offs, data.len());
        }
        let valid = validity(&strings.iter().map(|s| s.is_some()).collect::<Vec<_>>());
        let bufs = vec![valid, offs, data];
        finish(bufs, strings)
    }

    fn views(strings: &[Option<&str>]) -> (Built, ArrowArray) {
        let mut data = Vec::new();
        let mut v: Vec<u8> = Vec::new();
        for s in strings {
            let s = s.unwrap_or("").as_bytes();
            v.extend((s.len() as i32).to_le_bytes());
            if s.len() <= 12 {
                let mut inline = [0u8; 12];
                inline[..s.len()].copy_from_slice(s);
                v.extend(inline);
            } else {
                v.extend(&s[..4]);
                v.extend(0i32.to_le_bytes());
                v.extend((data.len() as i32).to_le_bytes());
                data.extend(s);
            }
        }
        let valid = validity(&strings.iter().map(|s| s.is_some()).collect::<Vec<_>>());
        let sizes = (data.len() as i64).to_le_bytes().to_vec();
        finish(vec![valid, v, data, sizes], strings)
    }

    fn finish(bufs: Vec<Vec<u8>>, strings: &[Option<&str>]) -> (Built, ArrowArray) {
        let mut b = Built { ptrs: bufs.iter().map(|x| x.as_ptr() as *const c_void).collect(), bufs };
        let arr = ArrowArray {
            length: strings.len() as i64,
            null_count: strings.iter().filter(|s| s.is_none()).count() as i64,
            offset: 0,
            n_buffers: b.bufs.len() as i64,
            n_children: 0,
            buffers: b.ptrs.as_mut_ptr(),
            children: std::ptr::null_mut(),
            dictionary: std::ptr::null_mut(),
            release: Some(count_release),
            private_data: std::ptr::null_mut(),
        };
        (b, arr)
    }

    fn expect(strings: &[Option<&str>], from: usize) -> Vec<Option<Vec<u8>>> {
        strings[from..].iter().map(|s| s.map(|s| s.as_bytes().to_vec())).collect()
    }

    fn got(v: Vec<Option<&[u8]>>) -> Vec<Option<Vec<u8>>> {
        v.into_iter().map(|s| s.map(|s| s.to_vec())).collect()
    }

    const S: &[Option<&str>] = &[Some("ACGT"), None, Some(""), Some("ACGTACGTACGTACGTAC"), Some("N"), None, Some("GATTACAGATTA"), Some("GATTACAGATTAC"), Some("T")];

    #[test]
    fn reads_every_layout_with_nulls_and_offsets() {
        for layout in [StringLayout::Utf8, StringLayout::LargeUtf8, StringLayout::View] {
            let (_b, mut a) = match layout {
                StringLayout::Utf8 => utf8(S, false),
                StringLayout::LargeUtf8 => utf8(S, true),
                StringLayout::View => views(S),
            };
            let all = unsafe { string_views(&a, layout, 0, S.len()) }.unwrap();
            assert_eq!(got(all), expect(S, 0), "{layout:?}");
            // a row range
            let part = unsafe { string_views(&a, layout, 3, 4) }.unwrap();
            assert_eq!(got(part), expect(&S[..7], 3), "{layout:?}");
            // the array's own offset (a slice of a bigger array)
            a.offset = 2;
            a.length = S.len() as i64 - 2;
            let sliced = unsafe { string_views(&a, layout, 0, S.len() - 2) }.unwrap();
            assert_eq!(got(sliced), expect(S, 2), "{layout:?}");
            let past = unsafe { string_views(&a, layout, 0, S.len()) };
            assert!(past.is_err());
        }
    }

    #[test]
    fn rejects_broken_arrays() {
        let (_b, mut a) = utf8(S, false);
        a.n_buffers = 2;
        assert!(unsafe { string_views(&a, StringLayout::Utf8, 0, 1) }.is_err());
        let (mut b, a) = utf8(&[Some("AC"), Some("G")], false);
        // decreasing offsets
        b.bufs[1][4..8].copy_from_slice(&5i32.to_le_bytes());
        b.bufs[1][8..12].copy_from_slice(&1i32.to_le_bytes());
        assert!(unsafe { string_views(&a, StringLayout::Utf8, 0, 2) }.is_err());
        let (_b, mut a) = utf8(&[Some("AC")], false);
        a.release = None;
        assert!(unsafe { string_views(&a, StringLayout::Utf8, 0, 1) }.is_err());
        assert_eq!(StringLayout::parse("vu"), Some(StringLayout::View));
        assert_eq!(StringLayout::parse("z"), None);
    }

    #[test]
    fn owned_array_moves_and_releases_once() {
        let (_b, mut a) = utf8(S, false);
        let before = RELEASED.load(Ordering::SeqCst);
        let owned = unsafe { OwnedArray::take(&mut a) }.unwrap();
        assert!(a.release.is_none(), "the source is marked released");
        assert!(unsafe { OwnedArray::take(&mut a) }.is_err());
        let v = unsafe { string_views(owned.get(), StringLayout::Utf8, 0, 1) }.unwrap();
        assert_eq!(v[0], Some(&b"ACGT"[..]));
        drop(owned);
        assert_eq!(RELEASED.load(Ordering::SeqCst), before + 1);
    }
}
