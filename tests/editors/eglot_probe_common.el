;;; eglot_probe_common.el --- what both eglot probes start with -*- lexical-binding: t -*-
;; Loaded by eglot_probe.el and eglot_more_probe.el: eglot, a stand-in yaml-mode, the spec
;; read from $HOLODECK_EGLOT_SPEC and the result the probe writes.
(require 'json)
(require 'subr-x)
(require 'cl-lib)

(require 'eglot)
(require 'flymake)

(unless (fboundp 'yaml-mode) ; stands in for the yaml-mode package, not in Emacs 28
  (define-derived-mode yaml-mode prog-mode "YAML"))

(defvar probe-spec (json-read-file (getenv "HOLODECK_EGLOT_SPEC")))
(defun probe-get (key &optional from) (alist-get key (or from probe-spec)))
(defvar probe-result (list (cons 'errors nil)))
(defun probe-put (key value) (setf (alist-get key probe-result) value))
(defun probe-fail (message)
  (probe-put 'errors (append (probe-get 'errors probe-result) (list message))))
(defvar probe-publishes 0)
