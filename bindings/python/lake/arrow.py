"""Query results as Arrow: the C stream exported through the PyCapsule
interface (`__arrow_c_stream__`), and a small reader of batches.

A capsule named "arrow_array_stream" points at a malloc'd ArrowArrayStream.
A consumer moves the stream out (copies it and sets the source's release to
NULL); the capsule's destructor releases a stream nobody took, then frees
the memory.
"""
import ctypes

from ._native import ArrowArray, ArrowArrayStream, ArrowSchema

_libc = ctypes.CDLL(None)
_libc.malloc.restype = ctypes.c_void_p
_libc.malloc.argtypes = [ctypes.c_size_t]
_libc.free.restype = None
_libc.free.argtypes = [ctypes.c_void_p]

CAPSULE_NAME = b"arrow_array_stream"

_PyCapsule_New = ctypes.pythonapi.PyCapsule_New
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
# The destructor gets the dying capsule as a raw PyObject*: this second
# function object takes it as an address, never as a counted reference.
_PyCapsule_GetPointerRaw = ctypes.pythonapi["PyCapsule_GetPointer"]
_PyCapsule_GetPointerRaw.restype = ctypes.c_void_p
_PyCapsule_GetPointerRaw.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def new_stream():
    """A zeroed ArrowArrayStream in malloc'd memory (capsules own such memory)."""
    address = _libc.malloc(ctypes.sizeof(ArrowArrayStream))
    if not address:
        raise MemoryError("malloc of an ArrowArrayStream")
    ctypes.memset(address, 0, ctypes.sizeof(ArrowArrayStream))
    return ArrowArrayStream.from_address(address)


def free_stream(stream):
    """Releases the stream unless it was moved out, then frees its memory."""
    if stream.release:
        stream.release(ctypes.byref(stream))
    _libc.free(ctypes.addressof(stream))


@_DESTRUCTOR
def _capsule_destructor(capsule):
    address = _PyCapsule_GetPointerRaw(capsule, CAPSULE_NAME)
    if address:
        free_stream(ArrowArrayStream.from_address(address))


_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _DESTRUCTOR]


def stream_capsule(stream):
    """A PyCapsule "arrow_array_stream" owning `stream` (see new_stream)."""
    return _PyCapsule_New(ctypes.addressof(stream), CAPSULE_NAME, _capsule_destructor)


def stream_from_capsule(capsule):
    """The ArrowArrayStream a capsule points at (still owned by the capsule)."""
    return ArrowArrayStream.from_address(_PyCapsule_GetPointer(capsule, CAPSULE_NAME))


def _validity(array, index):
    bitmap = array.buffers[0]
    if not bitmap or array.null_count == 0:
        return True
    i = array.offset + index
    return bool(ctypes.string_at(bitmap + i // 8, 1)[0] >> (i % 8) & 1)


def _fixed(array, ctype, index):
    return ctype.from_address(array.buffers[1] + (array.offset + index) * ctypes.sizeof(ctype)).value


def _variable(array, index):
    offsets = (ctypes.c_int32 * 2).from_address(array.buffers[1] + (array.offset + index) * 4)
    return ctypes.string_at(array.buffers[2] + offsets[0], offsets[1] - offsets[0])


def _bool(array, index):
    i = array.offset + index
    return bool(ctypes.string_at(array.buffers[1] + i // 8, 1)[0] >> (i % 8) & 1)


# Arrow format string → the Python value of row `index` of an array.
_DECODERS = {
    b"l": lambda a, i: _fixed(a, ctypes.c_int64, i),
    b"g": lambda a, i: _fixed(a, ctypes.c_double, i),
    b"b": _bool,
    b"u": lambda a, i: _variable(a, i).decode(),
    b"z": _variable,
    b"tsu:UTC": lambda a, i: _fixed(a, ctypes.c_int64, i),
}


def column_values(schema, array):
    """The Python values of one column (an ArrowSchema and its ArrowArray)."""
    decode = _DECODERS.get(schema.format)
    if decode is None:
        raise NotImplementedError(f"Arrow format {schema.format!r}: use the Arrow stream")
    return [decode(array, i) if _validity(array, i) else None for i in range(array.length)]


__all__ = ["ArrowArray", "ArrowSchema", "ArrowArrayStream", "stream_capsule",
           "stream_from_capsule", "column_values"]
